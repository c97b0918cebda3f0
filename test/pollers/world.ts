import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { expect } from "vitest";
import { startTestDatabase, type TestDatabase } from "../../api/testing/postgres.ts";
import { startHyperliquidStandIn } from "../../devnet/stand-ins/hyperliquid/start.ts";
import { fillEvents, ledgerEvents } from "../../jobs/pollers/perps-events.ts";
import { type StartWorkerReturnType, startWorker } from "../../jobs/worker.ts";
import { loadConfig } from "../../lib/config.ts";
import type { Sql } from "../../lib/db/client.ts";
import type { Fill, LedgerUpdate } from "../../services/hyperliquid/protocol.ts";
import { cleanEnv, ROOT } from "../helpers/cli.ts";

/** Waits until `check` returns a value (not undefined/false), or fails after `ms`. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
}

/**
 * `launchpad worker --jobs pollers` as its own process (so a test can SIGKILL it); `exited`
 * resolves to the exit code, or -1 when a signal ended it.
 */
export function spawnPollersWorker(env: Record<string, string>) {
  const child: ChildProcess = spawn(
    process.execPath,
    [join(ROOT, "bin", "launchpad.js"), "worker", "--jobs", "pollers"],
    { cwd: ROOT, env: cleanEnv(env), stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  child.stdout?.on("data", (d) => (out += d));
  child.stderr?.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((r) =>
    child.on("exit", (code, signal) => r(signal ? -1 : code)),
  );
  return { child, exited, output: () => out };
}

/**
 * The environment of a test's pollers worker: test mode, no chain and no venue (each test adds
 * the service it polls), short upstream timeouts, ticks scaled by `scale`.
 */
export function pollersEnv(p: {
  dataDir: string;
  databaseUrl: string;
  scale: string;
  extra: Record<string, string>;
}): Record<string, string> {
  return {
    LAUNCHPAD_ENV: "test",
    LAUNCHPAD_DATA_DIR: p.dataDir,
    DATABASE_URL: p.databaseUrl,
    BSC_RPC_URL: "http://127.0.0.1:9",
    HYPERLIQUID_API_URL: "http://127.0.0.1:9",
    UPSTREAM_TIMEOUT_MS: "1000",
    POLL_TIME_SCALE: p.scale,
    ...p.extra,
  };
}

/** The pollers worker inside the test process (the one a kill test stops first). */
export function startPollersInProcess(env: Record<string, string>): Promise<StartWorkerReturnType> {
  return startWorker({
    databaseUrl: env.DATABASE_URL as string,
    log: pino({ level: "silent" }),
    config: loadConfig(env, env.LAUNCHPAD_DATA_DIR as string),
    jobs: ["pollers"],
  });
}

/** Failed polls in a row of one poller for one agent (0 once a poll succeeds). */
export async function pollFailures(sql: Sql, poller: string, agentId: string): Promise<number> {
  const [s] = await sql<{ failures: number }[]>`
    select failures from app.poller_state where poller = ${poller} and agent_id = ${agentId}`;
  return s?.failures ?? 0;
}

/**
 * The kill test every poller shares. Call it with no other worker running and with `fresh`
 * (feed entries of something new at the source) not yet polled: a worker SIGKILLed inside the
 * poll's commit (`poll-commit:<poller>`) leaves none of them stored; its successor brings the
 * feed to `history()` (what the source's whole history must give), once each.
 */
export async function killInsideCommit(p: {
  env: Record<string, string>;
  poller: "perps" | "safe" | "social";
  fresh: string[];
  stored: () => Promise<string[]>;
  history: () => Promise<string[]>;
}): Promise<void> {
  const kill = { ...p.env, LAUNCHPAD_TEST_KILL_POINTS: `poll-commit:${p.poller}` };
  const first = spawnPollersWorker(kill);
  expect(await first.exited).toBe(-1);
  // Killed inside the transaction: nothing of that poll was committed.
  const afterKill = await p.stored();
  for (const f of p.fresh) expect(afterKill).not.toContain(f);
  // The kill point fires once per data dir: the successor runs through.
  const second = spawnPollersWorker(kill);
  try {
    const all = await p.history();
    for (const f of p.fresh) expect(all).toContain(f);
    await until(
      "the feed after the restart",
      async () => (await p.stored()).length >= all.length,
      60_000,
    ).catch((e) => {
      throw new Error(`${String(e)}\n${second.output()}`);
    });
    expect(await p.stored()).toEqual(all);
  } finally {
    second.child.kill("SIGTERM");
    await second.exited;
  }
}

/**
 * A poller world: real Postgres, the venue stand-in with its state on disk, a data dir. Time
 * runs `scale` times as fast (POLL_TIME_SCALE): the venue's rate window (a minute) shrinks with
 * it, as the pollers' budget window does.
 */
export async function pollerWorld(o: { scale?: number } = {}) {
  const scale = o.scale ?? 0.1;
  const db: TestDatabase = await startTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), "launchpad-pollers-"));
  const statePath = join(dataDir, "hyperliquid-state.json");
  const log = pino({ level: "silent" });
  const venue = { log, statePath, walkEveryMs: 0, hangMs: 4_000, weightWindowMs: 60_000 * scale };
  let hl = await startHyperliquidStandIn(venue);
  const port = hl.port;
  const world = {
    db,
    dataDir,
    get hlUrl() {
      return hl.url;
    },
    control: async (method: string, path: string, body?: unknown) => {
      const r = await fetch(`${hl.url}/_control${path}`, {
        method,
        headers: { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
      return (await r.json()) as Record<string, unknown>;
    },
    /** Stops the venue (open requests cut), as a crash or an outage would. */
    stopVenue: () => hl.stop(),
    /** Starts it again on the same port from its saved state. */
    startVenue: async () => {
      hl = await startHyperliquidStandIn({ ...venue, port });
    },
    env: (extra: Record<string, string> = {}) => ({
      LAUNCHPAD_ENV: "test",
      LAUNCHPAD_DATA_DIR: dataDir,
      DATABASE_URL: db.url,
      // Not the devnet: the worker's pollers need no chain.
      BSC_RPC_URL: "http://127.0.0.1:9",
      HYPERLIQUID_API_URL: hl.url,
      POLL_TIME_SCALE: String(scale),
      ...extra,
    }),
    /** `launchpad worker --jobs pollers` as its own process (so a test can SIGKILL it). */
    spawnWorker: (extra: Record<string, string> = {}) => spawnPollersWorker(world.env(extra)),
    addAgent: async (agentId: string, perps?: string) => {
      await db.sql`insert into app.agents (agent_id, name, ticker, description, image_url)
        values (${agentId}, ${agentId}, 'TST', 'test agent', 'https://example.com/a.png')`;
      if (perps) {
        await db.sql`insert into app.agent_wallets (agent_id, chain, address, role)
          values (${agentId}, 'hyperliquid', ${perps.toLowerCase()}, 'perps')`;
      }
    },
    events: (agentId: string, source = "hl-listener") =>
      db.sql<
        {
          event_type: string;
          source_event_id: string;
          data: Record<string, unknown>;
          correlation_id: string | null;
          occurred_at: Date;
        }[]
      >`
        select event_type, source_event_id, data, correlation_id, occurred_at from app.agent_events
        where agent_id = ${agentId} and source = ${source} order by occurred_at, id`,
    stop: async () => {
      await hl.stop();
      await db.stop();
    },
  };
  return world;
}

type PollerWorld = Awaited<ReturnType<typeof pollerWorld>>;

/** The feed entries (`type id`, sorted) the venue's whole history of `user` must give. */
export async function expectedPerpsIds(w: PollerWorld, agentId: string, user: string) {
  const s = (await w.control("GET", `/state?user=${user}`)) as {
    account: { fills: Fill[]; ledger: LedgerUpdate[] };
  };
  return [
    ...ledgerEvents(agentId, user, s.account.ledger),
    ...fillEvents(agentId, user, s.account.fills),
  ]
    .map((e) => `${e.eventType} ${e.sourceEventId}`)
    .sort();
}

/** The feed entries (`type id`, sorted) stored for `agentId`. */
export async function storedIds(w: PollerWorld, agentId: string) {
  return (await w.events(agentId)).map((e) => `${e.event_type} ${e.source_event_id}`).sort();
}
