import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestDatabase, type TestDatabase } from "../../../api/testing/postgres.ts";
import { createAgent } from "../../../lib/agents/keys.ts";
import { loadConfig } from "../../../lib/config.ts";
import { insertAgentEvents } from "../../../lib/events/store.ts";
import { outboundSettings } from "../../../lib/webhooks/outbound/settings.ts";
import { createSubscription } from "../../../lib/webhooks/outbound/subscriptions.ts";
import { cleanEnv, ROOT } from "../../helpers/cli.ts";
import { startReceiver, verifyStandardWebhook } from "./receiver.ts";

const EVENTS = 20;
/** The request during which the worker is killed. */
const KILL_AT = 6;
let db: TestDatabase;
const dataDir = mkdtempSync(join(tmpdir(), "launchpad-outbound-kill-"));
const workers: ChildProcess[] = [];
let output = "";

beforeAll(async () => {
  db = await startTestDatabase();
});
afterAll(async () => {
  for (const w of workers) if (w.exitCode === null) w.kill("SIGKILL");
  await db?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** `launchpad worker` as a real process against the test database. */
function startWorker(env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [join(ROOT, "bin", "launchpad.js"), "worker"], {
    cwd: ROOT,
    env: cleanEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Kept for the failure message: a worker that cannot start says why here.
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  workers.push(child);
  return child;
}

it("a worker SIGKILLed mid-delivery loses nothing: the interrupted delivery is retried with the same webhook-id", async () => {
  let killed: Promise<unknown> | undefined;
  let first: ChildProcess | undefined;
  const rx = await startReceiver((_, n) => {
    if (n === KILL_AT && first) {
      // The worker dies while this request waits for its answer.
      killed = new Promise((r) => first?.once("exit", r));
      first.kill("SIGKILL");
      return { status: 200, delayMs: 5_000 };
    }
    return { status: 200, delayMs: 50 };
  });
  const env = {
    DATABASE_URL: db.url,
    LAUNCHPAD_ENV: "test",
    LAUNCHPAD_DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    // A chain RPC that is not there: the worker needs no devnet, and this test no chain.
    BSC_RPC_URL: "http://127.0.0.1:9",
    RELAYER_PRIVATE_KEY: `0x${"22".repeat(32)}`,
    SERVICE_REGISTRY_ADDRESS: `0x${"33".repeat(20)}`,
    STEWARD_MASTER_KEY: `0x${"11".repeat(32)}`,
    // Test-mode clock: the lease of a dead worker's attempt lapses in 1.5 s, not 15 s.
    OUTBOUND_WEBHOOK_TIME_SCALE: "0.1",
  };
  const { secretsKey } = outboundSettings(loadConfig(env, dataDir));
  const agent = await createAgent(db.sql, { name: "kill" });
  const { subscription, secret } = await createSubscription(db.sql, secretsKey, {
    agentId: agent.agentId,
    url: `${rx.origin}/hook`,
    eventTypes: null,
    sources: null,
    categories: null,
    description: null,
  });
  await insertAgentEvents({
    sql: db.sql,
    events: Array.from({ length: EVENTS }, (_, i) => ({
      agentId: agent.agentId,
      eventType: "token.traded",
      category: "trading" as const,
      source: "indexer",
      sourceEventId: `k${i}`,
      occurredAt: new Date(Date.now() - 60_000 + i),
      data: { i },
    })),
  });

  first = startWorker(env);
  const early = new Promise<never>((_, reject) =>
    first?.once("exit", () => {
      if (!killed) reject(new Error(`the worker exited before the kill:\n${output}`));
    }),
  );
  await Promise.race([rx.until((r) => r.length >= KILL_AT, 60_000), early]);
  await killed;
  expect(first.signalCode).toBe("SIGKILL");
  const [inFlight] = await db.sql`select count(*)::int as n from app.webhook_deliveries
    where subscription_id = ${subscription.subscriptionId} and status = 'delivering'`;
  expect(inFlight?.n).toBe(1);

  startWorker(env);
  await rx.until((r) => new Set(r.map((x) => x.headers["webhook-id"])).size >= EVENTS, 60_000);
  const rows = await (async () => {
    for (;;) {
      const r = await db.sql<{ status: string; attempts: number; outcomes: string[] }[]>`
        select d.status, d.attempts,
          array(select coalesce(outcome, 'open') from app.webhook_attempts a
            where a.delivery_id = d.delivery_id order by attempt) as outcomes
        from app.webhook_deliveries d where subscription_id = ${subscription.subscriptionId}`;
      if (r.every((x) => x.status === "succeeded")) return r;
      await new Promise((res) => setTimeout(res, 200));
    }
  })();

  // Every event arrived, each signed; repeats are the at-least-once kind: same id, same body.
  expect(rows).toHaveLength(EVENTS);
  const byId = new Map<string, Set<string>>();
  for (const r of rx.received) {
    verifyStandardWebhook(secret, r.headers, r.body);
    const id = String(r.headers["webhook-id"]);
    byId.set(id, (byId.get(id) ?? new Set()).add(r.body));
  }
  expect(byId.size).toBe(EVENTS);
  for (const bodies of byId.values()) expect(bodies.size).toBe(1);
  const items = [...byId.values()].map((b) => JSON.parse([...b][0] as string).data.data.i);
  expect(items.sort((x, y) => x - y)).toEqual(Array.from({ length: EVENTS }, (_, i) => i));
  // The interrupted attempt is in the log, followed by the successful retry.
  const retried = rows.filter((r) => r.attempts > 1);
  expect(retried).toHaveLength(1);
  expect(retried[0]?.outcomes).toEqual(["interrupted", "succeeded"]);
  expect(rx.received.length).toBe(EVENTS + 1);
}, 180_000);
