import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { processRuns } from "../../../lib/local/pidfile.ts";
import {
  type StartEmbeddedPostgresReturnType,
  startEmbeddedPostgres,
} from "../../../lib/local/postgres/embedded.ts";
import { isolatedEnv, type Stack, startStack, waitFor } from "../cli.ts";
import { ADMIN_TOKEN, launchEnv } from "../launch.ts";
import { call, newStats } from "./load.ts";
import { restartPostgres, secondApi } from "./roles.ts";

export type DbChaosOptions = {
  /** Postgres restarts (fast shutdown, `downMs` away, the same cluster again). */
  restarts: number;
  downMs: number;
  /** Then one outage this long. */
  outageSeconds: number;
  log: (line: string) => void;
};

export type DbChaosReport = {
  /** Role exits the supervisor saw ("api exited (code 1); restarting"). */
  roleExits: string[];
  /** The last lines of each role that exited, before its exit. */
  exitContext: string[][];
  /** The second API, run by hand without a supervisor, is still the process it was. */
  secondApiAlive: boolean;
  /** Times the indexer role started Ponder again after it gave up. */
  ponderRestarts: number;
  /** Milliseconds from each restart until both APIs reach the database again. */
  recoveryMs: number[];
  /** Milliseconds from the end of the outage until deep health is green on both APIs. */
  outageRecoveryMs: number;
  /** Lines each role printed while the database was away in the outage. */
  outageLines: Record<string, number>;
  /** The first lines the roles printed during the outage (what an operator reads). */
  outageSample: string[];
  load: ReturnType<typeof newStats>;
};

/** The deep health last read, told when a wait for it times out. */
let lastDeep = "";

/** The deep health of one API: its database check, and whether every dependency is up. */
async function deep(api: string): Promise<{ database: string; healthy: boolean } | undefined> {
  // Each check's state is shown to the operator alone (launchEnv sets its token).
  const r = await fetch(`${api}/health?deep=true`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    signal: AbortSignal.timeout(10_000),
  });
  const text = await r.text();
  lastDeep = `${api}: ${text.slice(0, 600)}`;
  const body = JSON.parse(text) as {
    data?: { checks?: Record<string, { state: string }> };
    checks?: Record<string, { state: string }>;
  };
  const checks = body.data?.checks ?? body.checks ?? {};
  return {
    database: checks.database?.state ?? "none",
    healthy: Object.keys(checks).length > 0 && Object.values(checks).every((c) => c.state === "up"),
  };
}

/** Waits until both APIs say every dependency is up. */
async function allUp(apis: string[], what: string, timeoutMs: number): Promise<void> {
  await waitFor(
    what,
    async () => ((await Promise.all(apis.map(deep))).every((d) => d?.healthy) ? true : undefined),
    timeoutMs,
  ).catch((e: unknown) => {
    throw new Error(`${(e as Error).message}; last deep health: ${lastDeep}`, { cause: e });
  });
}

/** Lines per role (the supervisor's `[role]` prefix) in a stretch of its output. */
function linesByRole(text: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of text.split("\n")) {
    const role = /^\[([\w-]+)\]/.exec(line)?.[1];
    if (role) counts[role] = (counts[role] ?? 0) + 1;
  }
  return counts;
}

/**
 * The whole stack (`launchpad start`) plus a second `launchpad api` run by hand, under a small
 * read load, while its Postgres is restarted `restarts` times and then stopped for
 * `outageSeconds`. Reports what every role did: no role may exit, and both APIs must answer
 * with every dependency up afterwards.
 */
export async function runDbChaos(o: DbChaosOptions): Promise<DbChaosReport> {
  const env = launchEnv(await isolatedEnv(), { LOG_LEVEL: "warn" });
  const dataDir = env.LAUNCHPAD_DATA_DIR as string;
  let stack: Stack | undefined;
  let api2: Awaited<ReturnType<typeof secondApi>> | undefined;
  // The Postgres started again here: the supervisor no longer owns it.
  let pg: StartEmbeddedPostgresReturnType | undefined;
  let loading = true;
  try {
    stack = await startStack(env);
    api2 = await secondApi(env);
    await api2.start();
    const s = stack;
    const apis = [s.apiUrl, api2.url];
    await allUp(apis, "deep health before the faults", 300_000);
    o.log(`db chaos: stack up, ${o.restarts} restarts then a ${o.outageSeconds} s outage`);
    const load = newStats();
    const paths = ["/health", "/v2/agents", "/tokens", "/v2/launches", "/v2/indexer/status"];
    const reader = (async () => {
      for (let i = 0; loading; i++) {
        await call(apis, load, "read", paths[i % paths.length] as string, {}, 10_000);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();

    const databaseUp = async () =>
      (await Promise.all(apis.map(deep))).every((d) => d?.database === "up") ? true : undefined;
    const recoveryMs: number[] = [];
    for (let i = 0; i < o.restarts; i++) {
      const old = pg;
      pg = await restartPostgres(dataDir, o.downMs);
      void old; // its process is gone; the new one is stopped at the end
      const up = Date.now();
      await waitFor("both APIs to reach the database again", databaseUp, 120_000);
      recoveryMs.push(Date.now() - up);
      o.log(
        `db chaos: restart ${i + 1}: the APIs reach the database ${recoveryMs.at(-1)} ms after it is up`,
      );
    }

    // The outage: Postgres stopped, nothing listening, for outageSeconds.
    const pidFile = join(dataDir, "run", "postgres.pid");
    const pid = Number(readFileSync(pidFile, "utf8"));
    const logFile = join(dataDir, "api-2.log");
    const from = { out: s.output().length, api2: statSync(logFile).size };
    process.kill(pid, "SIGINT");
    await waitFor("postgres stopped", async () => (processRuns(pid) ? undefined : true), 60_000);
    o.log(`db chaos: Postgres stopped for ${o.outageSeconds} s`);
    await new Promise((r) => setTimeout(r, o.outageSeconds * 1000));
    const outageText = s.output().slice(from.out);
    const outageLines = linesByRole(outageText);
    const outageSample = outageText
      .split("\n")
      .filter((l) => /^\[(api|worker|indexer)\]/.test(l))
      .slice(0, 20)
      .map((l) => l.slice(0, 300));
    outageLines["api (second)"] = readFileSync(logFile, "utf8")
      .slice(from.api2)
      .split("\n")
      .filter(Boolean).length;
    pg = await startEmbeddedPostgres({ dataDir });
    const back = Date.now();
    await allUp(apis, "deep health green on both APIs after the outage", 600_000);
    const outageRecoveryMs = Date.now() - back;
    o.log(`db chaos: deep health green ${outageRecoveryMs} ms after Postgres is back`);
    loading = false;
    await reader;

    const output = s.output();
    const lines = output.split("\n");
    const exits = lines.flatMap((l, i) => (/^\[launchpad\] [\w-]+ exited \(/.test(l) ? [i] : []));
    return {
      roleExits: exits.map((i) => lines[i] as string),
      // What the role that exited printed last: the cause, in the report a failure prints.
      exitContext: exits.map((i) => {
        const role = /^\[launchpad\] ([\w-]+) exited/.exec(lines[i] as string)?.[1];
        return lines
          .slice(0, i)
          .filter((l) => l.startsWith(`[${role}]`))
          .slice(-12)
          .map((l) => l.slice(0, 600));
      }),
      secondApiAlive: api2.alive(),
      ponderRestarts: output.split("\n").filter((l) => l.includes("ponder exited (")).length,
      recoveryMs,
      outageRecoveryMs,
      outageLines,
      outageSample,
      load,
    };
  } finally {
    loading = false;
    await api2?.kill();
    if (stack) {
      await stack.stop("SIGINT").catch(() => undefined);
      await stack.cleanup();
    }
    await pg?.stop();
  }
}
