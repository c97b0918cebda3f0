/**
 * `npm run bench:ws`: WebSocket fan-out latency, memory per socket and delivery rate.
 *
 * BENCHMARK ONLY: the chain views are throwaway tables written by this script in a schema of
 * an embedded Postgres (same names and columns Ponder publishes). A trade is "committed by the
 * indexer" when this script commits its insert together with the NOTIFY Ponder sends at a
 * block's commit (`<views schema>_live_query`). Chain-to-index lag is `bench:indexer`'s figure.
 *
 * Two real `launchpad api` processes serve /ws; SOCKETS clients (split over both, each with
 * its own X-Forwarded-For so the per-IP limit does not apply) subscribe to one token. For each
 * socket count: latency from the commit to each socket receiving the trade (p50/p99 over every
 * socket and trade), API memory per socket (RSS delta of both processes), and messages/s in a
 * burst. Ceiling, same run: a bare `ws` server in its own process broadcasting the same text to
 * the same number of sockets (no Postgres, no routing).
 *
 * Environment: BENCH_SOCKETS (default "1,1000,10000"), BENCH_TRADES (per count, default 20).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type postgres from "postgres";
import WebSocket, { WebSocketServer } from "ws";
import { createSql, type Sql } from "../lib/db/client.ts";
import { migrate } from "../lib/db/migrate.ts";
import { freePort } from "../lib/net.ts";
import { startEmbeddedPostgres } from "../lib/postgres/embedded.ts";
import { residentBytes } from "../lib/process-memory.ts";

const SCHEMA = "bench_ws";
const TOKEN = `0x${"ab".repeat(20)}`;
const ROOT = join(import.meta.dirname, "..");

type Run = { p50: number; p99: number; perSecond: number; note: string };

async function main() {
  const counts = (process.env.BENCH_SOCKETS ?? "1,1000,10000").split(",").map(Number);
  const trades = Number(process.env.BENCH_TRADES ?? 20);
  const dataDir = mkdtempSync(join(tmpdir(), "bench-ws-"));
  const pg = await startEmbeddedPostgres({ dataDir: join(dataDir, "pg") });
  const sql = createSql(pg.url, { max: 2 });
  const apis: ChildProcess[] = [];
  let ceiling: Awaited<ReturnType<typeof startCeiling>> | undefined;
  try {
    await migrate(sql);
    await createViews(sql);
    const ports = [await freePort(), await freePort()];
    for (const port of ports) apis.push(await startApi(pg.url, dataDir, port));
    ceiling = await startCeiling();
    const top = ceiling;
    console.log(`2 API processes, ${trades} trades per run (one per transaction, 100 ms apart)\n`);
    console.log(
      "sockets   bridge p50/p99 ms   msgs/s     KiB/socket   ceiling p50/p99 ms   msgs/s",
    );
    let block = 1000;
    for (const n of counts) {
      const rss0 = apis.reduce((s, a) => s + rss(a.pid as number), 0);
      const clients = await openMany(n, (i) => `ws://127.0.0.1:${ports[i % 2]}/ws`, true);
      await new Promise((r) => setTimeout(r, 1_000));
      const rss1 = apis.reduce((s, a) => s + rss(a.pid as number), 0);
      const bridge = await measure(clients, trades, async (tx) => {
        block++;
        await sql.begin(async (t) => {
          await insertTrade(t, tx, block);
          await t`select pg_notify(${`${SCHEMA}_live_query`}, '[]')`;
        });
      });
      for (const c of clients) c.terminate();
      const bare = await openMany(n, () => top.url, false);
      const ceilingRun = await measure(bare, trades, async (tx) => top.send(tx));
      for (const c of bare) c.terminate();
      const kib = n > 1 ? ((rss1 - rss0) / n / 1024).toFixed(1) : "-";
      console.log(
        `${String(n).padStart(7)}   ${fmt(bridge)}   ${kib.padStart(10)}   ${fmt(ceilingRun)}`,
      );
      await new Promise((r) => setTimeout(r, 2_000));
    }
  } finally {
    await ceiling?.stop();
    for (const a of apis) a.kill("SIGTERM");
    await sql.end({ timeout: 1 });
    await pg.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const fmt = (r: Run) =>
  `${r.p50.toFixed(1).padStart(8)} / ${r.p99.toFixed(1).padStart(7)}   ${r.perSecond.toFixed(0).padStart(7)}${r.note}`;

/**
 * Sends `trades` one every 100 ms, then the same count back to back; latency from the
 * spaced ones, messages/s from the burst (all receipts / time from first send to last receipt).
 */
async function measure(clients: WebSocket[], trades: number, send: (tx: string) => Promise<void>) {
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  let received = 0;
  let last = 0;
  const onMessage = (d: WebSocket.RawData) => {
    const text = d.toString();
    const i = text.indexOf('"txHash":"');
    if (i < 0) return;
    const at = sentAt.get(text.slice(i + 10, i + 76));
    if (at === undefined) return;
    last = performance.now();
    latencies.push(last - at);
    received++;
  };
  for (const c of clients) c.on("message", onMessage);
  const txs = Array.from({ length: trades * 2 }, () => `0x${randomHex(64)}`);
  for (const tx of txs.slice(0, trades)) {
    sentAt.set(tx, performance.now());
    await send(tx);
    await new Promise((r) => setTimeout(r, 100));
  }
  // The client process can be the bottleneck (it parses every copy): report what arrived.
  const spacedOk = await until(() => received >= trades * clients.length, 60_000).then(
    () => true,
    () => false,
  );
  const spacedShare = received / (trades * clients.length);
  latencies.sort((a, b) => a - b);
  const q = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
  const [p50, p99] = [q(0.5), q(0.99)];
  received = 0;
  const start = performance.now();
  // Back to back, one commit after another, as Ponder commits blocks.
  for (const tx of txs.slice(trades)) {
    sentAt.set(tx, performance.now());
    await send(tx);
  }
  await until(() => received >= trades * clients.length, 120_000).catch(() => {});
  const perSecond = received / ((last - start) / 1000);
  for (const c of clients) c.off("message", onMessage);
  const note = spacedOk ? "" : ` (${(spacedShare * 100).toFixed(0)}% arrived within 60 s)`;
  return { p50, p99, perSecond, note };
}

async function openMany(n: number, url: (i: number) => string, subscribe: boolean) {
  const out: WebSocket[] = [];
  for (let i = 0; i < n; i += 200) {
    const batch = Array.from({ length: Math.min(200, n - i) }, (_, k) => i + k);
    out.push(
      ...(await Promise.all(
        batch.map(
          (k) =>
            new Promise<WebSocket>((resolve, reject) => {
              const ip = `10.${(k >> 16) & 255}.${(k >> 8) & 255}.${k & 255}`;
              const ws = new WebSocket(url(k), { headers: { "x-forwarded-for": ip } });
              ws.once("error", reject);
              ws.once("open", () => {
                if (!subscribe) return resolve(ws);
                ws.once("message", (d) => {
                  const m = JSON.parse(d.toString()) as { type: string };
                  if (m.type === "subscribed") resolve(ws);
                  else reject(new Error(`subscribe answered ${d.toString()}`));
                });
                ws.send(JSON.stringify({ type: "subscribe", channel: "token", id: TOKEN }));
              });
            }),
        ),
      )),
    );
  }
  return out;
}

async function until(ok: () => boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error("timed out waiting for deliveries");
    await new Promise((r) => setTimeout(r, 5));
  }
}

const randomHex = (n: number) =>
  Array.from({ length: n }, () => "0123456789abcdef"[Math.floor(Math.random() * 16)]).join("");

const rss = (pid: number) => residentBytes(pid) ?? 0;

async function insertTrade(sql: Sql | postgres.TransactionSql, tx: string, block: number) {
  await sql`insert into ${sql(SCHEMA)}.trade values (${`56:${tx}:0`}, ${TOKEN}, 'curve', 'buy',
    ${TOKEN}, 1000000000000000000000, 10000000000000000, 100000000000000, 10000000000000,
    ${block}, 0, ${tx}, 1700000000, null, null)`;
}

/** The throwaway views (benchmark only): the columns the bridge reads. */
async function createViews(sql: Sql) {
  await sql.unsafe(`
    create schema ${SCHEMA};
    create table ${SCHEMA}.token (address text primary key);
    insert into ${SCHEMA}.token values ('${TOKEN}');
    create table ${SCHEMA}.trade (
      id text primary key, token text not null, venue text not null, side text not null,
      account text not null, token_amount numeric(78) not null, bnb_amount numeric(78) not null,
      fee numeric(78) not null, price numeric(78) not null, block_number numeric(78) not null,
      log_index integer not null, tx_hash text not null, timestamp numeric(78) not null,
      spot numeric(78), bnb_usd numeric(78));
    create index on ${SCHEMA}.trade (block_number, log_index);
    create index on ${SCHEMA}.trade (token, block_number, log_index);
    create table ${SCHEMA}.launch (vault text primary key, id numeric(78), created_block numeric(78));
    create table ${SCHEMA}.launch_event (id text primary key, vault text, kind text,
      block_number numeric(78), log_index integer);`);
}

async function startApi(databaseUrl: string, dataDir: string, port: number) {
  const child = spawn(process.execPath, [join(ROOT, "bin", "launchpad.js"), "api"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: databaseUrl,
      LAUNCHPAD_DATA_DIR: dataDir,
      LAUNCHPAD_ENV: "test",
      VIEWS_SCHEMA: SCHEMA,
      PORT: String(port),
      TRUST_PROXY: "1",
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "inherit", "inherit"],
    // LOG_LEVEL above keeps the API quiet unless something goes wrong.
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error("launchpad api exited");
    const ok = await fetch(`http://127.0.0.1:${port}/health`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return child;
    if (Date.now() > deadline) throw new Error("launchpad api did not start");
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The ceiling: a bare `ws` server (its own process) broadcasting a trade-shaped text. */
async function startCeiling() {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [fileURLToPath(import.meta.url), "--ceiling", String(port)],
    {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    },
  );
  await new Promise((r) => child.once("message", r));
  return {
    url: `ws://127.0.0.1:${port}`,
    send: async (tx: string) => {
      child.send(tx);
    },
    stop: async () => {
      child.kill("SIGKILL");
    },
  };
}

function ceilingServer(port: number) {
  const wss = new WebSocketServer({ port, host: "127.0.0.1", perMessageDeflate: false });
  wss.on("listening", () => process.send?.("ready"));
  // Never outlive the bench, however it ended.
  process.on("disconnect", () => process.exit(0));
  process.on("message", (tx: string) => {
    const data = { txHash: tx };
    const text = JSON.stringify({ type: "trade", channel: `token.${TOKEN}`, data, cursor: "x" });
    for (const c of wss.clients) c.send(text);
  });
}

const ceilingAt = process.argv.indexOf("--ceiling");
if (ceilingAt < 0) await main();
else ceilingServer(Number(process.argv[ceilingAt + 1]));
