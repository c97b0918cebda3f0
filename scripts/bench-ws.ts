/**
 * `npm run bench:ws`: WebSocket fan-out latency, memory per socket and delivery rate.
 *
 * BENCHMARK ONLY: the chain views are throwaway tables written by this script in a schema of
 * an embedded Postgres (same names and columns Ponder publishes). A trade is "committed by the
 * indexer" when this script commits its insert together with the NOTIFY Ponder sends at a
 * block's commit (`<views schema>_live_query`). Chain-to-index lag is `bench:indexer`'s figure.
 *
 * Two real `launchpad api` processes serve /ws; SOCKETS clients (split over both, each with
 * its own X-Forwarded-For so the per-IP limit does not apply) subscribe to one token. The
 * clients live in BENCH_CLIENT_PROCS processes of their own (scripts/bench-ws-clients.ts), so
 * parsing every copy is spread over processes instead of bounding the run. For each socket
 * count: latency from the commit to each socket receiving the trade (p50/p99 over every socket
 * and trade), API memory per socket (RSS delta of both processes), messages/s in a burst, and
 * the CPU each side spent in the burst (in cores: which part is bound). Ceiling, same run, same
 * client processes: a bare `ws` server in its own process broadcasting the same text to the
 * same number of sockets (no Postgres, no routing).
 *
 * Environment: BENCH_SOCKETS (default "1,1000,10000"), BENCH_TRADES (per count, default 20),
 * BENCH_CLIENT_PROCS (default 4).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type postgres from "postgres";
import { WebSocketServer } from "ws";
import { createSql, type Sql } from "../lib/db/client.ts";
import { migrate } from "../lib/db/migrate.ts";
import { freePort } from "../lib/local/net.ts";
import { startEmbeddedPostgres } from "../lib/local/postgres/embedded.ts";
import { residentBytes } from "../lib/local/process-memory.ts";
import { treeCpuSeconds } from "./bench-indexer-probes.ts";
import { type ClientCommand, type ClientReply, epochMs, stampedTx } from "./bench-ws-clients.ts";

const SCHEMA = "bench_ws";
const TOKEN = `0x${"ab".repeat(20)}`;
const ROOT = join(import.meta.dirname, "..");

type Run = {
  p50: number;
  p99: number;
  perSecond: number;
  note: string;
  /** CPU in the burst, in cores: the server side (API or bare server) and the client processes. */
  cpu: { server: number; clients: number };
};

async function main() {
  const counts = (process.env.BENCH_SOCKETS ?? "1,1000,10000").split(",").map(Number);
  const trades = Number(process.env.BENCH_TRADES ?? 20);
  const procs = Number(process.env.BENCH_CLIENT_PROCS ?? 4);
  checkOpenFiles(Math.max(...counts));
  const dataDir = mkdtempSync(join(tmpdir(), "bench-ws-"));
  const pg = await startEmbeddedPostgres({ dataDir: join(dataDir, "pg") });
  const sql = createSql(pg.url, { max: 2 });
  const apis: ChildProcess[] = [];
  let ceiling: Awaited<ReturnType<typeof startCeiling>> | undefined;
  const pool = startClients(procs);
  try {
    await migrate(sql);
    await createViews(sql);
    const ports = [await freePort(), await freePort()];
    for (const port of ports) apis.push(await startApi(pg.url, dataDir, port));
    ceiling = await startCeiling();
    const top = ceiling;
    const apiPids = apis.map((a) => a.pid as number);
    console.log(
      `2 API processes, ${procs} client processes, ${availableParallelism()} cores, ${trades} trades per run (one per transaction, 100 ms apart, then back to back); load ${loadavg()[0]?.toFixed(1)}\n`,
    );
    console.log(
      "sockets   bridge p50/p99 ms   msgs/s     KiB/socket   CPU api/clients   ceiling p50/p99 ms   msgs/s     KiB/socket   CPU server/clients   bridge/ceiling",
    );
    let block = 1000;
    for (const n of counts) {
      const rss0 = apiPids.reduce((s, p) => s + rss(p), 0);
      await pool.open([...ports], n, TOKEN);
      await new Promise((r) => setTimeout(r, 1_000));
      const rss1 = apiPids.reduce((s, p) => s + rss(p), 0);
      const bridge = await measure(pool, apiPids, trades, async (tx) => {
        block++;
        await sql.begin(async (t) => {
          await insertTrade(t, tx, block);
          await t`select pg_notify(${`${SCHEMA}_live_query`}, '[]')`;
        });
      });
      await pool.close();
      const c0 = rss(top.pid);
      await pool.open([top.port], n);
      await new Promise((r) => setTimeout(r, 1_000));
      const c1 = rss(top.pid);
      const ceilingRun = await measure(pool, [top.pid], trades, async (tx) => top.send(tx));
      await pool.close();
      const kib = (a: number, b: number) => (n > 1 ? ((b - a) / n / 1024).toFixed(1) : "-");
      console.log(
        `${String(n).padStart(7)}   ${fmt(bridge)}   ${kib(rss0, rss1).padStart(10)}   ${cpu(bridge)}   ${fmt(ceilingRun)}   ${kib(c0, c1).padStart(10)}   ${cpu(ceilingRun)}      ${(ceilingRun.perSecond / bridge.perSecond).toFixed(2).padStart(6)}x`,
      );
      if (bridge.note || ceilingRun.note) console.log(`${bridge.note}${ceilingRun.note}`);
      await new Promise((r) => setTimeout(r, 2_000));
    }
  } finally {
    pool.stop();
    await ceiling?.stop();
    for (const a of apis) a.kill("SIGTERM");
    await sql.end({ timeout: 1 });
    await pg.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const fmt = (r: Run) =>
  `${r.p50.toFixed(1).padStart(8)} / ${r.p99.toFixed(1).padStart(7)}   ${r.perSecond.toFixed(0).padStart(7)}`;
const cpu = (r: Run) =>
  `${r.cpu.server.toFixed(2).padStart(7)} / ${r.cpu.clients.toFixed(2).padEnd(7)}`;

/** Every socket needs a descriptor in the process that holds it: the bare server holds all. */
function checkOpenFiles(sockets: number) {
  const m = /Max open files\s+(\d+)/.exec(readFileSync("/proc/self/limits", "utf8"));
  const limit = Number(m?.[1] ?? Number.POSITIVE_INFINITY);
  if (limit < sockets + 256) {
    console.error(
      `open files: ${limit} a process, ${sockets + 256} needed; raise it first (ulimit -n ${sockets + 256})`,
    );
    process.exit(2);
  }
}

/**
 * Sends `trades` one every 100 ms, then the same count back to back; latency from the
 * spaced ones, messages/s and CPU from the burst (all receipts / time from first send to last
 * receipt).
 */
async function measure(
  pool: ClientPool,
  serverPids: number[],
  trades: number,
  send: (tx: string) => Promise<void>,
): Promise<Run> {
  const spaced = await pool.expect(trades, 60_000);
  for (let i = 0; i < trades; i++) {
    await send(stampedTx());
    await new Promise((r) => setTimeout(r, 100));
  }
  const s = await spaced.all;
  const latencies = s.latencies.sort((a, b) => a - b);
  const q = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
  const burst = await pool.expect(trades, 120_000);
  const cpu0 = { server: cpuOf(serverPids), clients: cpuOf(pool.pids) };
  const start = epochMs();
  // Back to back, one commit after another, as Ponder commits blocks.
  for (let i = 0; i < trades; i++) await send(stampedTx());
  const b = await burst.all;
  const wall = (epochMs() - start) / 1000;
  const share = (now: number, then: number) => (now - then) / wall;
  const want = trades * pool.sockets;
  const note = (phase: string, got: number) =>
    got < want ? ` (${phase}: ${((100 * got) / want).toFixed(0)}% arrived in time)` : "";
  return {
    p50: q(0.5),
    p99: q(0.99),
    perSecond: b.received / ((b.last - start) / 1000),
    note: note("spaced", s.received) + note("burst", b.received),
    cpu: {
      server: share(cpuOf(serverPids), cpu0.server),
      clients: share(cpuOf(pool.pids), cpu0.clients),
    },
  };
}

const cpuOf = (pids: number[]) => pids.reduce((s, p) => s + treeCpuSeconds(p), 0);

type ClientPool = ReturnType<typeof startClients>;

/** `procs` client processes (scripts/bench-ws-clients.ts) sharing the sockets of each run. */
function startClients(procs: number) {
  const children = Array.from({ length: procs }, () =>
    spawn(process.execPath, [join(import.meta.dirname, "bench-ws-clients.ts")], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    }),
  );
  const next = (c: ChildProcess, type: ClientReply["type"]) =>
    new Promise<ClientReply>((resolve, reject) => {
      const on = (m: ClientReply) => {
        if (m.type !== type && m.type !== "failed") return;
        c.off("message", on);
        if (m.type === "failed") reject(new Error(m.error));
        else resolve(m);
      };
      c.on("message", on);
    });
  const ask = (c: ChildProcess, cmd: ClientCommand, type: ClientReply["type"]) => {
    const answer = next(c, type);
    c.send(cmd);
    return answer;
  };
  const pool = {
    pids: children.map((c) => c.pid as number),
    sockets: 0,
    async open(ports: number[], n: number, subscribe?: string) {
      pool.sockets = n;
      let first = 0;
      await Promise.all(
        children.map((c, j) => {
          const count = Math.floor(n / procs) + (j < n % procs ? 1 : 0);
          const cmd: ClientCommand = { type: "open", ports, first, count, subscribe };
          first += count;
          return ask(c, cmd, "opened");
        }),
      );
    },
    /** Resolves once every process listens; `all` resolves with what they all received. */
    async expect(perSocket: number, timeoutMs: number) {
      const done = children.map((c) => next(c, "done"));
      await Promise.all(
        children.map((c) => ask(c, { type: "expect", perSocket, timeoutMs }, "expecting")),
      );
      const all = Promise.all(done).then((all) => {
        const replies = all as Extract<ClientReply, { type: "done" }>[];
        return {
          latencies: replies.flatMap((r) => r.latencies),
          received: replies.reduce((s, r) => s + r.received, 0),
          last: Math.max(...replies.map((r) => r.last)),
        };
      });
      // Wrapped: an async function returning a promise would wait for it.
      return { all };
    },
    async close() {
      await Promise.all(children.map((c) => ask(c, { type: "close" }, "closed")));
    },
    stop() {
      for (const c of children) c.kill("SIGKILL");
    },
  };
  return pool;
}

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
    port,
    pid: child.pid as number,
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
