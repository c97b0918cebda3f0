import { type ChildProcess, spawn } from "node:child_process";
import { openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../../../lib/local/net.ts";
import { processRuns } from "../../../lib/local/pidfile.ts";
import {
  embeddedPostgresUrl,
  type StartEmbeddedPostgresReturnType,
  startEmbeddedPostgres,
} from "../../../lib/local/postgres/embedded.ts";
import { cleanEnv, ROOT, type Stack, waitFor } from "../cli.ts";
import { rolePid } from "../launch.ts";

/** How long a restarted API may take to answer /health (migrations wait on Ponder's locks). */
const API_START_TIMEOUT_MS = 180_000;

/** Roles the supervisor restarts by itself once killed. */
export const SUPERVISED_ROLES = ["worker", "indexer", "steward", "four-meme", "x"] as const;

export type ChaosAction =
  | { kind: "kill"; role: (typeof SUPERVISED_ROLES)[number] | "api-2" }
  | { kind: "pause-rpc"; ms: number }
  | { kind: "restart-postgres"; downMs: number };

/**
 * A second `launchpad api` beside the supervisor's, on the stack's database and chain: the
 * API process chaos kills and restarts, as a second instance run by hand (the supervisor
 * restarts its own). Its output goes to `<data dir>/api-2.log`.
 *
 * @example
 * const api2 = await secondApi(env); await api2.start(); // not started until asked
 * await api2.kill(); await api2.start();
 */
export async function secondApi(env: Record<string, string>) {
  const dataDir = env.LAUNCHPAD_DATA_DIR as string;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const start = async () => {
    const log = openSync(join(dataDir, "api-2.log"), "a");
    child = spawn(process.execPath, [join(ROOT, "bin", "launchpad.js"), "api"], {
      cwd: ROOT,
      env: cleanEnv({
        ...env,
        DATABASE_URL: embeddedPostgresUrl(dataDir) ?? "",
        PORT: String(port),
        LOG_LEVEL: "warn",
      }),
      stdio: ["ignore", log, log],
    });
    await waitFor(
      "the second API",
      async () => ((await fetch(`${url}/health`)).ok ? true : undefined),
      API_START_TIMEOUT_MS,
    );
  };
  return {
    url,
    start,
    alive: () => child !== undefined && child.exitCode === null && child.signalCode === null,
    kill: async () => {
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child?.once("exit", r));
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/** Anvil's pid, from the pid file the devnet writes. */
export function anvilPid(dataDir: string): number {
  return Number(readFileSync(join(dataDir, "run", "anvil.pid"), "utf8"));
}

/**
 * Restarts the stack's embedded Postgres as an operator (or a managed database's failover)
 * would: a fast shutdown (every connection dropped, open transactions rolled back), `downMs`
 * with nothing listening, then the same cluster on the same port. Every role must ride it out.
 * The new server belongs to the caller, who stops it after the stack.
 */
export async function restartPostgres(
  dataDir: string,
  downMs: number,
): Promise<StartEmbeddedPostgresReturnType> {
  const pid = Number(readFileSync(join(dataDir, "run", "postgres.pid"), "utf8"));
  process.kill(pid, "SIGINT");
  await waitFor("postgres stopped", async () => (processRuns(pid) ? undefined : true), 60_000);
  await new Promise((r) => setTimeout(r, downMs));
  return startEmbeddedPostgres({ dataDir });
}

/**
 * Carries out one chaos action: SIGKILL of a supervised role (the supervisor restarts it),
 * the RPC paused (SIGSTOP of anvil) for `ms`, longer than the upstream timeout, then resumed,
 * or Postgres restarted (`onPostgres` receives the new server).
 */
export async function act(
  a: ChaosAction,
  o: {
    stack: Stack;
    dataDir: string;
    api2: Awaited<ReturnType<typeof secondApi>>;
    onPostgres: (pg: StartEmbeddedPostgresReturnType) => void;
  },
): Promise<string> {
  if (a.kind === "restart-postgres") {
    const started = Date.now();
    o.onPostgres(await restartPostgres(o.dataDir, a.downMs));
    return `restarted Postgres (up again in ${Date.now() - started} ms)`;
  }
  if (a.kind === "pause-rpc") {
    const pid = anvilPid(o.dataDir);
    process.kill(pid, "SIGSTOP");
    try {
      await new Promise((r) => setTimeout(r, a.ms));
    } finally {
      process.kill(pid, "SIGCONT");
    }
    return `paused the RPC for ${a.ms} ms`;
  }
  if (a.role === "api-2") {
    await o.api2.kill();
    await new Promise((r) => setTimeout(r, 500));
    const started = Date.now();
    await o.api2.start();
    return `killed and restarted the second API (up again in ${Date.now() - started} ms)`;
  }
  let pid: number;
  try {
    pid = rolePid(o.stack, a.role);
  } catch {
    return `${a.role} was down already (restarting)`;
  }
  process.kill(pid, "SIGKILL");
  return `SIGKILLed ${a.role} (pid ${pid})`;
}
