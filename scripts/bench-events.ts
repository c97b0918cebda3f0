/**
 * `npm run bench:events`: the agent event pipeline's throughput and latency.
 *
 * 1. Webhooks: signed `pr.merged` webhooks POSTed by CONNECTIONS keep-alive clients (undici)
 *    to one API process (a worker thread: its own event loop and core) for SECONDS; accepted
 *    (200, durably in the inbox) per second and p50/p99, beside GET /health on the same server
 *    as the ceiling. Signatures are made before the clock starts (the sender's cost, not ours).
 * 2. Consumer: the inbox those webhooks filled (topped up to BENCH_INBOX rows), drained into agent_events by the consumer's
 *    batches; events per second, beside one set-based INSERT ... SELECT of the same rows (the
 *    database's own ceiling for that copy).
 * 3. Latency: with the pg-boss consumer running (another worker thread), webhooks at RATE per
 *    second for LATENCY_SECONDS; for each, the time from its 200 to its row being readable
 *    (committed in agent_events, which GET /v2/agents/{token}/events reads), p50/p99/max.
 *
 * Environment: BENCH_SECONDS (10), BENCH_CONNECTIONS (32), BENCH_RATE (300),
 * BENCH_LATENCY_SECONDS (10), BENCH_INBOX (50,000).
 */
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { PgBoss } from "pg-boss";
import { pino } from "pino";
import { Pool } from "undici";
import { createApp } from "../api/app.ts";
import { startServer } from "../api/server.ts";
import { defaultApiSettings } from "../api/settings.ts";
import { drainInboxBatch } from "../jobs/events/consumer.ts";
import { startEventsWorker } from "../jobs/events/worker.ts";
import { createSql } from "../lib/db/client.ts";
import { TAIL_START, tailAgentEvents } from "../lib/events/store.ts";
import { freePort } from "../lib/local/net.ts";
import { signWebhookBody } from "../lib/webhooks/inbound/signature.ts";
import { benchDatabase, envNumber } from "./bench-database.ts";

const SECRET = "bench-code-host-secret-0123456789";
const AGENTS = 100;
const secrets = { steward: SECRET, cloud: SECRET, codeHost: SECRET, agentEvents: SECRET };

let seq = 0;
function signed(runId: string) {
  const i = seq++;
  const body = JSON.stringify({
    sourceEventId: `${runId}-${i}`,
    eventType: "pr.merged",
    occurredAt: new Date().toISOString(),
    agentId: `bench-${i % AGENTS}`,
    data: {
      repo: "acme/agent",
      number: i + 1,
      title: `Change ${i}`,
      url: `https://git.example/pr/${i}`,
    },
  });
  return { id: `${runId}-${i}`, body, header: signWebhookBody({ secrets: [SECRET], body }) };
}

async function main() {
  const seconds = envNumber("BENCH_SECONDS", 10);
  const connections = envNumber("BENCH_CONNECTIONS", 32);
  const rate = envNumber("BENCH_RATE", 300);
  const latencySeconds = envNumber("BENCH_LATENCY_SECONDS", 10);
  const db = await benchDatabase("bench-events", 4);
  const { sql } = db;
  const threads: Worker[] = [];
  try {
    await sql`insert into app.agents (agent_id, name, token_address)
      select 'bench-' || i, 'Bench ' || i, '0x' || lpad(to_hex(${0xe0000} + i), 40, '0')
      from generate_series(0, ${AGENTS - 1}) i`;
    const port = await freePort();
    threads.push(await thread({ role: "api", url: db.url, port }));
    const base = `http://127.0.0.1:${port}`;
    console.log(
      `${connections} keep-alive connections, ${seconds} s per case, API in a worker thread\n`,
    );
    console.log("case                                   per s     p50 ms   p99 ms   errors");
    const health = await drive(base, seconds, connections, () => ({
      method: "GET",
      path: "/health",
    }));
    print("GET /health (ceiling)", health);
    const bodies = Array.from({ length: Math.ceil(seconds * 8000) }, () => signed("tput"));
    let n = 0;
    const hooks = await drive(base, seconds, connections, () => {
      const s = bodies[n++ % bodies.length] as ReturnType<typeof signed>;
      return {
        method: "POST",
        path: "/v2/webhooks/code-host",
        headers: { "content-type": "application/json", "x-webhook-signature": s.header },
        body: s.body,
      };
    });
    print("POST /v2/webhooks/code-host", hooks);
    const [inbox] = await sql`select count(*)::int as n from app.webhook_inbox`;
    console.log(`  (inbox rows stored: ${inbox?.n}; a body sent twice answers 200 duplicate)\n`);

    // 2. The consumer over that inbox topped up to INBOX rows (as the API stores them), and
    // one set-based copy of the same rows as the ceiling.
    const target = envNumber("BENCH_INBOX", 50_000);
    await sql`insert into app.webhook_inbox (source, source_event_id, event_type, payload, agent_id)
      select 'code-host', 'fill-' || i, 'pr.merged', jsonb_build_object('sourceEventId', 'fill-' || i,
        'eventType', 'pr.merged', 'occurredAt', now(), 'agentId', 'bench-' || (i % ${AGENTS}::int),
        'data', jsonb_build_object('repo', 'acme/agent', 'number', i + 1, 'title', 'Change ' || i,
          'url', 'https://git.example/pr/' || i)), 'bench-' || (i % ${AGENTS}::int)
      from generate_series(1, ${Math.max(0, target - (inbox?.n ?? 0))}::int) i`;
    const [pending] = await sql`select count(*)::int as n from app.webhook_inbox`;
    await sql`create unlogged table bench_copy (like app.agent_events including defaults)`;
    let t = performance.now();
    await sql`insert into bench_copy (agent_id, event_type, category, source, source_event_id, occurred_at, data)
      select agent_id, event_type, 'apps', source, source_event_id, (payload->>'occurredAt')::timestamptz, payload->'data'
      from app.webhook_inbox`;
    const ceiling = (pending?.n ?? 0) / ((performance.now() - t) / 1000);
    t = performance.now();
    let drained = 0;
    for (;;) {
      const r = await drainInboxBatch(sql);
      if (r.processed === 0) break;
      drained += r.processed;
    }
    const consumer = drained / ((performance.now() - t) / 1000);
    console.log("consumer                               events/s");
    console.log(`INSERT ... SELECT of the rows (ceiling) ${ceiling.toFixed(0).padStart(7)}`);
    console.log(
      `inbox -> agent_events (batches of 500)  ${consumer.toFixed(0).padStart(7)}  (${drained} events)\n`,
    );

    // 3. Webhook 200 to readable, with the pg-boss consumer running.
    threads.push(await thread({ role: "consumer", url: db.url, port }));
    const latencies = await latency(sql, base, rate, latencySeconds);
    const q = (p: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
    console.log(
      `webhook 200 -> readable on /events, ${rate}/s for ${latencySeconds} s, pg-boss consumer running`,
    );
    console.log(
      `  n ${latencies.length}  p50 ${q(0.5).toFixed(0)} ms  p99 ${q(0.99).toFixed(0)} ms  max ${(latencies.at(-1) ?? 0).toFixed(0)} ms`,
    );
  } finally {
    for (const w of threads) await w.terminate();
    await db.stop();
  }
}

function print(name: string, r: { rps: number; p50: number; p99: number; errors: number }) {
  console.log(
    `${name.padEnd(36)} ${r.rps.toFixed(0).padStart(7)} ${r.p50.toFixed(2).padStart(9)} ${r.p99.toFixed(2).padStart(8)} ${String(r.errors).padStart(8)}`,
  );
}

/** Open-loop: `rate` webhooks a second; each one's 200 time against its row's first sight. */
async function latency(
  sql: ReturnType<typeof createSql>,
  base: string,
  rate: number,
  seconds: number,
) {
  const pool = new Pool(base, { connections: 16 });
  const answered = new Map<string, number>();
  const seen = new Map<string, number>();
  let polling = true;
  let stopAt = 0;
  // Sees rows as soon as they commit: the commit-safe tail (ids are not committed in order).
  const poller = (async () => {
    let cursor = TAIL_START;
    const unseen = () => [...answered.keys()].some((id) => !seen.has(id));
    while (polling || unseen()) {
      const page = await tailAgentEvents({ sql, after: cursor, limit: 5000 });
      cursor = page.cursor;
      const now = performance.now();
      for (const e of page.events) if (!seen.has(e.sourceEventId)) seen.set(e.sourceEventId, now);
      await new Promise((r) => setTimeout(r, 5));
      if (!polling && performance.now() - stopAt > 30_000) break;
    }
  })();
  const sends: Promise<void>[] = [];
  const t0 = performance.now();
  for (let i = 0; i < rate * seconds; i++) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const s = signed("lat");
    sends.push(
      pool
        .request({
          method: "POST",
          path: "/v2/webhooks/code-host",
          headers: { "content-type": "application/json", "x-webhook-signature": s.header },
          body: s.body,
        })
        .then(async (res) => {
          await res.body.arrayBuffer();
          if (res.statusCode === 200) answered.set(s.id, performance.now());
        }),
    );
  }
  await Promise.all(sends);
  stopAt = performance.now();
  polling = false;
  await poller;
  await pool.close();
  // A row committed before its 200 reached us counts as 0 ms.
  return [...answered]
    .map(([id, at]) => Math.max(0, (seen.get(id) ?? Number.POSITIVE_INFINITY) - at))
    .sort((a, b) => a - b);
}

/** Closed-loop load: `connections` clients each send the next request when one answers. */
async function drive(
  base: string,
  seconds: number,
  connections: number,
  next: () => {
    method: "GET" | "POST";
    path: string;
    headers?: Record<string, string>;
    body?: string;
  },
) {
  const pool = new Pool(base, { connections, pipelining: 1 });
  const latencies: number[] = [];
  let errors = 0;
  const until = performance.now() + seconds * 1000;
  const client = async () => {
    while (performance.now() < until) {
      const started = performance.now();
      const res = await pool.request(next());
      await res.body.arrayBuffer();
      if (res.statusCode !== 200) errors++;
      latencies.push(performance.now() - started);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: connections }, client));
  const elapsed = (performance.now() - t0) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const q = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
  return { rps: latencies.length / elapsed, p50: q(0.5), p99: q(0.99), errors };
}

async function thread(d: { role: "api" | "consumer"; url: string; port: number }): Promise<Worker> {
  const worker = new Worker(new URL(import.meta.url), { workerData: d });
  await new Promise((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  return worker;
}

async function serveInWorker(d: { role: "api" | "consumer"; url: string; port: number }) {
  const logger = pino({ level: "silent" });
  if (d.role === "api") {
    const sql = createSql(d.url, { max: 20 });
    const app = createApp({
      logger,
      env: "bench",
      sql,
      settings: defaultApiSettings({ rateLimit: { unauthenticated: 1e9 } }),
      events: { webhookSecrets: secrets },
    });
    await startServer({ app, host: "127.0.0.1", port: d.port, logger });
  } else {
    const sql = createSql(d.url, { max: 6 });
    const boss = new PgBoss({ connectionString: d.url, schema: "jobs", max: 5 });
    await boss.start();
    await startEventsWorker({ boss, sql, log: logger });
  }
  parentPort?.postMessage("ready");
}

// Last, so every declaration above is initialised before either side runs.
if (isMainThread) await main();
else await serveInWorker(workerData as { role: "api" | "consumer"; url: string; port: number });
