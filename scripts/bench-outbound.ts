/**
 * `npm run bench:outbound`: outbound webhook delivery on an embedded Postgres, the real
 * dispatcher in this process and a real HTTP receiver in a worker thread (its own event loop).
 *
 * 1. Throughput: BENCH_EVENTS events to 1 subscription (one in flight: in order) and to 10
 *    subscriptions, beside the ceiling: the same POSTs sent straight with undici, serially and
 *    10 at a time, to the same receiver in the same run.
 * 2. Latency: BENCH_RATE events/s for BENCH_SECONDS to 5 subscriptions; p50/p99 from the
 *    event's commit to its first attempt reaching the receiver.
 * 3. 100 subscribers (100 agents), 10 answering after 3 s and 10 down (connection refused),
 *    the same load: latency of the 80 healthy ones, and what the slow and down ones got.
 *
 * Environment: BENCH_EVENTS (default 1000), BENCH_RATE (50), BENCH_SECONDS (10).
 */
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { isMainThread, parentPort, Worker } from "node:worker_threads";
import { pino } from "pino";
import { request } from "undici";
import { startOutboundDispatcher } from "../jobs/webhooks/outbound/dispatcher.ts";
import { createAgent } from "../lib/agents/keys.ts";
import { deriveKey } from "../lib/crypto/seal.ts";
import type { Sql } from "../lib/db/client.ts";
import { insertAgentEvents, type NewAgentEvent } from "../lib/events/store.ts";
import { freePort } from "../lib/local/net.ts";
import { createSubscription } from "../lib/webhooks/outbound/subscriptions.ts";
import { outboundTiming } from "../lib/webhooks/outbound/timing.ts";
import { benchDatabase, envNumber } from "./bench-database.ts";

const now = () => performance.timeOrigin + performance.now();
type Hit = { path: string; sourceEventId: string; at: number };

/** The receiver thread: /ok/* answers at once, /slow/* after 3 s; it records every hit. */
function receiverThread() {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = now();
      const body = Buffer.concat(chunks).toString();
      const id = body ? (JSON.parse(body).data?.sourceEventId ?? "") : "";
      hits.push({ path: req.url ?? "", sourceEventId: id, at });
      const delay = req.url?.startsWith("/slow/") ? 3_000 : 0;
      setTimeout(() => res.writeHead(200).end(), delay);
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, "127.0.0.1", () => {
    parentPort?.postMessage({ port: (server.address() as { port: number }).port });
  });
  parentPort?.on("message", (m: string) => {
    if (m === "collect") parentPort?.postMessage({ hits: hits.splice(0) });
  });
}

function collect(worker: Worker): Promise<Hit[]> {
  return new Promise((resolve) => {
    worker.once("message", (m: { hits: Hit[] }) => resolve(m.hits));
    worker.postMessage("collect");
  });
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};

async function main() {
  const events = envNumber("BENCH_EVENTS", 1000);
  const rate = envNumber("BENCH_RATE", 50);
  const seconds = envNumber("BENCH_SECONDS", 10);
  const db = await benchDatabase("bench-outbound", 10);
  const { sql } = db;
  const worker = new Worker(new URL(import.meta.url));
  try {
    const port = await new Promise<number>((r) => worker.once("message", (m) => r(m.port)));
    const origin = `http://127.0.0.1:${port}`;
    const down = `http://127.0.0.1:${await freePort()}`; // nothing listens there
    const key = deriveKey(randomBytes(32), "bench");
    const dispatcher = await startOutboundDispatcher({
      sql,
      log: pino({ level: "warn" }),
      secretsKey: key,
      trustedOrigins: [origin, down],
      timing: outboundTiming(1),
      headBlock: async () => undefined,
    });
    let seq = 0;
    const subscribe = async (agentId: string, url: string) =>
      createSubscription(sql, key, {
        agentId,
        url,
        eventTypes: null,
        sources: null,
        categories: null,
        description: null,
      });
    const event = (agentId: string): NewAgentEvent => ({
      agentId,
      eventType: "token.traded",
      category: "trading",
      source: "bench",
      sourceEventId: `b${++seq}`,
      occurredAt: new Date(),
      data: { side: "buy", amountWei: "1000000000000000000", trader: `0x${"ab".repeat(20)}` },
    });
    /** Hits until `n` of them pass `counts` (or the timeout): all hits are returned. */
    const waitHits = async (n: number, timeoutMs = 120_000, counts = (_: Hit) => true) => {
      const all: Hit[] = [];
      const deadline = Date.now() + timeoutMs;
      while (all.filter(counts).length < n && Date.now() < deadline) {
        all.push(...(await collect(worker)));
        await new Promise((r) => setTimeout(r, 20));
      }
      return all;
    };

    console.log("\n1. Throughput (all events committed first, then delivered)\n");
    console.log("case                                         deliveries   seconds   deliveries/s");
    const row = (name: string, n: number, ms: number) =>
      console.log(
        `${name.padEnd(44)} ${String(n).padStart(10)} ${(ms / 1000).toFixed(2).padStart(9)} ${(n / (ms / 1000)).toFixed(0).padStart(14)}`,
      );
    const body = JSON.stringify({
      type: "token.traded",
      timestamp: new Date().toISOString(),
      data: event("x"),
    });
    for (const parallel of [1, 10]) {
      let t = now();
      let sent = 0;
      await Promise.all(
        Array.from({ length: parallel }, async () => {
          while (sent < events) {
            sent++;
            const r = await request(`${origin}/ok/ceiling`, {
              method: "POST",
              body,
              headers: { "content-type": "application/json" },
            });
            await r.body.dump();
          }
        }),
      );
      row(`ceiling: undici POST, ${parallel} at a time`, events, now() - t);
      await collect(worker);
      const agents = await Promise.all(
        Array.from({ length: parallel }, (_, i) => createAgent(sql, { name: `t${parallel}-${i}` })),
      );
      const subs = await Promise.all(
        agents.map((a, i) => subscribe(a.agentId, `${origin}/ok/t${parallel}-${i}`)),
      );
      const per = Math.ceil(events / parallel);
      await dispatcherPaused(sql, async () => {
        for (const a of agents) {
          for (let i = 0; i < per; i += 500) {
            await insertAgentEvents({
              sql,
              events: Array.from({ length: Math.min(500, per - i) }, () => event(a.agentId)),
            });
          }
        }
      });
      t = now();
      await sql`select pg_notify('agent_events', '')`;
      const hits = await waitHits(per * parallel);
      row(
        `dispatcher: ${subs.length} subscription(s)`,
        hits.length,
        Math.max(...hits.map((h) => h.at)) - t,
      );
      await sql`update app.webhook_subscriptions set enabled = false`;
    }

    const load = async (
      agentIds: string[],
      expectPer: (agentId: string) => boolean,
      subsPerAgent: number,
      counts: (h: Hit) => boolean,
    ) => {
      const committed = new Map<string, number>();
      const total = rate * seconds;
      const start = now();
      for (let i = 0; i < total; i++) {
        const target = start + (i * 1000) / rate;
        const wait = target - now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const e = event(agentIds[i % agentIds.length] as string);
        await insertAgentEvents({ sql, events: [e] });
        committed.set(e.sourceEventId, now());
      }
      const expected = [...committed.keys()].filter((_, i) =>
        expectPer(agentIds[i % agentIds.length] as string),
      );
      const hits = await waitHits(expected.length * subsPerAgent, 60_000, counts);
      return { committed, hits };
    };

    console.log(`\n2. Latency: ${rate} events/s for ${seconds} s, 5 subscriptions on one agent\n`);
    const one = await createAgent(sql, { name: "latency" });
    for (let i = 0; i < 5; i++) await subscribe(one.agentId, `${origin}/ok/lat-${i}`);
    {
      const { committed, hits } = await load(
        [one.agentId],
        () => true,
        5,
        () => true,
      );
      const firstHit = new Map<string, number>();
      for (const h of hits)
        firstHit.set(
          `${h.path}|${h.sourceEventId}`,
          Math.min(firstHit.get(`${h.path}|${h.sourceEventId}`) ?? Infinity, h.at),
        );
      const lat = [...firstHit.entries()].map(
        ([k, at]) => at - (committed.get(k.split("|")[1] as string) ?? at),
      );
      console.log(
        `deliveries ${lat.length} of ${committed.size * 5}; commit -> first attempt p50 ${pct(lat, 50).toFixed(1)} ms, p99 ${pct(lat, 99).toFixed(1)} ms, max ${Math.max(...lat).toFixed(1)} ms`,
      );
      await sql`update app.webhook_subscriptions set enabled = false`;
    }

    console.log(
      `\n3. 100 subscribers (80 healthy, 10 answering after 3 s, 10 down), ${rate} events/s for ${seconds} s\n`,
    );
    const kinds = new Map<string, "ok" | "slow" | "down">();
    const agentIds: string[] = [];
    for (let i = 0; i < 100; i++) {
      const a = await createAgent(sql, { name: `s${i}` });
      const kind = i < 10 ? "slow" : i < 20 ? "down" : "ok";
      kinds.set(a.agentId, kind);
      agentIds.push(a.agentId);
      await subscribe(a.agentId, kind === "down" ? `${down}/x` : `${origin}/${kind}/${i}`);
    }
    {
      const { committed, hits } = await load(
        agentIds,
        (id) => kinds.get(id) === "ok",
        1,
        (h) => h.path.startsWith("/ok/"),
      );
      const healthy = hits.filter((h) => h.path.startsWith("/ok/"));
      const lat = healthy.map((h) => h.at - (committed.get(h.sourceEventId) ?? h.at));
      console.log(
        `healthy: ${healthy.length} delivered; commit -> first attempt p50 ${pct(lat, 50).toFixed(1)} ms, p99 ${pct(lat, 99).toFixed(1)} ms`,
      );
      const slow = hits.filter((h) => h.path.startsWith("/slow/")).length;
      const [st] = await sql<{ slowPending: number; downRetrying: number; downAttempts: number }[]>`
        select count(*) filter (where s.url like ${`${origin}/slow/%`} and d.status in ('pending', 'delivering'))::int as "slowPending",
          count(*) filter (where s.url like ${`${down}/%`} and d.status = 'pending')::int as "downRetrying",
          coalesce(sum(d.attempts) filter (where s.url like ${`${down}/%`}), 0)::int as "downAttempts"
        from app.webhook_deliveries d join app.webhook_subscriptions s using (subscription_id)`;
      console.log(
        `slow: ${slow} reached the receiver so far (one at a time per subscription), ${st?.slowPending} queued behind them`,
      );
      console.log(
        `down: ${st?.downRetrying} deliveries waiting for their next retry after ${st?.downAttempts} refused attempts`,
      );
    }
    await dispatcher.stop();
  } finally {
    await worker.terminate();
    await db.stop();
  }
}

/** Commits events while the dispatcher's fan-out is held off, so throughput is measured from a full queue. */
async function dispatcherPaused(sql: Sql, fn: () => Promise<void>) {
  const reserved = await sql.reserve();
  await reserved`begin`;
  await reserved`select pg_advisory_xact_lock(7400015)`;
  try {
    await fn();
  } finally {
    await reserved`commit`;
    reserved.release();
  }
}

if (isMainThread) await main();
else receiverThread();
