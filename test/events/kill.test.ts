import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestDatabase, type TestDatabase } from "../../api/testing/postgres.ts";
import { parseScaled } from "../../jobs/events/rollup.ts";
import { freePort } from "../../lib/local/net.ts";
import { cleanEnv, ROOT, waitFor } from "../helpers/cli.ts";
import { makeDeliveries, sendAll } from "./producer.ts";

// The crash proof of the pipeline: real `launchpad api` and `launchpad worker` processes over a
// real Postgres. While a producer sends signed webhooks (a tenth of them twice), the worker is
// SIGKILLed inside its batch transactions (before commit) and at random moments, and the API is
// SIGKILLed twice (the producer retries what got no answer, as a sender does). Then the inbox
// and agent_events must match exactly. KILL_TEST_WEBHOOKS raises the count (default 1,500).

const COUNT = Number(process.env.KILL_TEST_WEBHOOKS ?? 1500);
const DRAIN_TIMEOUT_MS = 60_000;
const secrets = { codeHost: "kill-test-code-host-secret", cloud: "kill-test-cloud-secret-000" };
const agents = ["kill-a", "kill-b", "kill-c"];
let db: TestDatabase;
let env: Record<string, string>;
let dataDir: string;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  db = await startTestDatabase();
  for (const [i, a] of agents.entries()) {
    await db.sql`insert into app.agents (agent_id, name, token_address)
      values (${a}, ${a}, ${`0x${String(i + 1).repeat(40)}`})`;
  }
  dataDir = mkdtempSync(join(tmpdir(), "launchpad-kill-"));
  env = {
    LAUNCHPAD_ENV: "test",
    LAUNCHPAD_DATA_DIR: dataDir,
    DATABASE_URL: db.url,
    PORT: String(await freePort()),
    CODE_HOST_WEBHOOK_SECRET: secrets.codeHost,
    CLOUD_WEBHOOK_SECRET: secrets.cloud,
    LOG_LEVEL: "warn",
  };
}, 60_000);

afterAll(async () => {
  for (const c of children) c.kill("SIGKILL");
  await db?.stop();
  if (process.env.KEEP_KILL_TEST_DIR) console.log(`kept ${dataDir}`);
  else rmSync(dataDir, { recursive: true, force: true });
});

function role(name: "api" | "worker", extra: Record<string, string> = {}): ChildProcess {
  // The worker runs the inbox consumer only: this stack has no chain for the launch saga.
  const args = name === "worker" ? ["worker", "--jobs", "events"] : ["api"];
  const child = spawn(process.execPath, [join(ROOT, "bin", "launchpad.js"), ...args], {
    cwd: ROOT,
    env: cleanEnv({ ...env, ...extra }),
    // Each role's output goes to <data dir>/<role>.log, for a failed run.
    stdio: [
      "ignore",
      openSync(join(dataDir, `${name}.log`), "a"),
      openSync(join(dataDir, `${name}.log`), "a"),
    ],
  });
  children.add(child);
  child.on("exit", () => children.delete(child));
  return child;
}

const killed = (c: ChildProcess) =>
  new Promise<void>((r) =>
    c.exitCode !== null || c.signalCode !== null ? r() : c.on("exit", () => r()),
  );

/** Waves of sending, a second apart: the chaos below needs about 12 s of traffic. */
const SEND_WAVES = 15;

it(`${COUNT} signed webhooks, the worker killed mid-batch again and again: inbox and feed match exactly`, async () => {
  const apiUrl = `http://127.0.0.1:${env.PORT}`;
  const startApi = async () => {
    const api = role("api");
    await waitFor("the API", async () => ((await fetch(`${apiUrl}/health`)).ok ? true : undefined));
    return api;
  };
  let api = await startApi();
  const unique = makeDeliveries({ count: COUNT, agents, secrets, runId: "kill" });
  // Every tenth delivery is sent again later (a sender's redelivery).
  const deliveries = [...unique, ...unique.filter((_, i) => i % 10 === 0)];

  let done = false;
  let workerLives = 0;
  let apiKills = 0;
  // The worker: odd lives die inside their 2nd-4th batch transaction (before commit), even
  // lives by an outside SIGKILL at a random moment.
  const workers = (async () => {
    while (!done) {
      workerLives++;
      const inBatch = workerLives % 2 === 1;
      const w = role(
        "worker",
        inBatch ? { LAUNCHPAD_TEST_KILL_POINTS: `inbox-batch:${2 + (workerLives % 3)}` } : {},
      );
      const outside = setTimeout(
        () => w.kill("SIGKILL"),
        inBatch ? 20_000 : 1_500 + Math.random() * 2_500,
      );
      await killed(w);
      clearTimeout(outside);
    }
  })();
  const apiKiller = (async () => {
    for (const delay of [1500, 2500]) {
      await new Promise((r) => setTimeout(r, delay));
      if (done) return;
      api.kill("SIGKILL");
      await killed(api);
      apiKills++;
      api = await startApi();
    }
  })();
  // Sent in waves a second apart, so the kills fall inside the sending however fast the
  // machine is (one burst can finish before the first kill on a quiet machine).
  let accepted = 0;
  const wave = Math.ceil(deliveries.length / SEND_WAVES);
  for (let i = 0; i < deliveries.length; i += wave) {
    const sent = await sendAll({
      apiUrl,
      deliveries: deliveries.slice(i, i + wave),
      connections: 16,
    });
    accepted += sent.accepted;
    await new Promise((r) => setTimeout(r, 1_000));
  }
  done = true;
  await Promise.all([workers, apiKiller]);
  expect(accepted).toBe(deliveries.length);
  expect(workerLives).toBeGreaterThan(3);
  const inBatch = readFileSync(join(dataDir, "worker.log"), "utf8").match(/test kill point/g);
  expect(inBatch?.length ?? 0).toBeGreaterThanOrEqual(1);
  expect(apiKills).toBe(2);

  // A last worker with no kill point drains what is left.
  const last = role("worker");
  await waitFor(
    "the inbox to drain",
    async () => {
      const [r] =
        await db.sql`select count(*)::int as n from app.webhook_inbox where processed_at is null`;
      return r?.n === 0 ? true : undefined;
    },
    DRAIN_TIMEOUT_MS,
  );
  last.kill("SIGTERM");
  await killed(last);
  api.kill("SIGTERM");
  await killed(api);

  // The inbox holds each distinct webhook once, all processed, none dead-lettered.
  const inbox = await db.sql<
    {
      source: string;
      sid: string;
      type: string;
      agent: string;
      payload: { occurredAt: string; data: Record<string, unknown> };
    }[]
  >`
    select source, source_event_id as sid, event_type as type, agent_id as agent, payload
    from app.webhook_inbox where processed_at is not null and failed_at is null`;
  expect(inbox).toHaveLength(COUNT);
  const [failed] =
    await db.sql`select count(*)::int as n from app.webhook_inbox where failed_at is not null`;
  expect(failed?.n).toBe(0);

  // Every non-inference inbox row is exactly one event with the same key and data.
  const events = await db.sql<
    { source: string; sid: string; type: string; agent: string; data: Record<string, unknown> }[]
  >`
    select source, source_event_id as sid, event_type as type, agent_id as agent, data from app.agent_events`;
  const plainInbox = inbox.filter((r) => r.type !== "inference.spent");
  const plainEvents = events.filter((e) => e.type !== "inference.spent");
  const key = (r: { source: string; sid: string }) => `${r.source}/${r.sid}`;
  expect(plainEvents.map(key).sort()).toEqual(plainInbox.map(key).sort());
  const byKey = new Map(plainEvents.map((e) => [key(e), e]));
  for (const r of plainInbox) {
    expect(byKey.get(key(r))).toMatchObject({ type: r.type, agent: r.agent, data: r.payload.data });
  }

  // inference.spent: one row per agent-minute, its sums those of the distinct deliveries.
  const want = new Map<string, { usd: bigint; n: number; tokensIn: number }>();
  for (const r of inbox.filter((x) => x.type === "inference.spent")) {
    const minute = new Date(
      Math.floor(Date.parse(r.payload.occurredAt) / 60_000) * 60_000,
    ).toISOString();
    const k = `inference.spent:${r.agent}:${minute}`;
    const w = want.get(k) ?? { usd: 0n, n: 0, tokensIn: 0 };
    w.usd += parseScaled(String(r.payload.data.usd));
    w.n += 1;
    w.tokensIn += Number(r.payload.data.tokensIn ?? 0);
    want.set(k, w);
  }
  const rolled = events.filter((e) => e.type === "inference.spent");
  expect(rolled.map((e) => e.sid).sort()).toEqual([...want.keys()].sort());
  for (const e of rolled) {
    const w = want.get(e.sid);
    expect({
      usd: parseScaled(String(e.data.usd)),
      n: e.data.deliveries,
      tokensIn: e.data.tokensIn,
    }).toEqual({
      usd: w?.usd,
      n: w?.n,
      tokensIn: w?.tokensIn,
    });
  }
}, 600_000);
