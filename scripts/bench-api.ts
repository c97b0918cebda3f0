/**
 * `npm run bench:api`: read-API throughput and latency on a large index.
 *
 * BENCHMARK ONLY: the chain tables are a throwaway copy written directly by this script (same
 * view and column names as Ponder publishes, same indexes as ponder.schema.ts) in a schema of
 * an embedded Postgres in a temp directory. Nothing else ever writes chain data by hand.
 *
 * Seeds TRADES trades (default 1,000,000) over TOKENS tokens with their candles, plus AGENTS
 * agents, serves the real app from a worker thread (its own event loop and core), then drives
 * each endpoint for SECONDS with CONNECTIONS keep-alive clients (undici) and prints requests/s
 * and p50/p99 latency, beside GET /health on the same server as the ceiling.
 *
 * Environment: BENCH_TRADES, BENCH_TOKENS, BENCH_AGENTS, BENCH_SECONDS, BENCH_CONNECTIONS,
 * BENCH_PERPS_FILLS (per agent, default 500), BENCH_LAUNCHES (default 2,000; 20 depositors each);
 * BENCH_PLANS=1 also prints EXPLAIN ANALYZE of the `/tokens` query of every sort and of the
 * chart, trades and agents queries; BENCH_ONLY=<regex> drives only the rows it matches (and
 * /health).
 *
 * `npm run bench:api -- --url http://127.0.0.1:3001` drives a live `npm start` instead (no seed,
 * no copy): tokens and agents are discovered through the API. Start it with
 * `RATE_LIMIT_PER_MINUTE=0` (or a budget above the load), or most answers are 429s.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { pino } from "pino";
import { Pool } from "undici";
import { createApp } from "../api/app.ts";
import { strongEtag } from "../api/http/read-cache.ts";
import { readCandles } from "../api/market/candles.ts";
import { toCandle } from "../api/market/chart.ts";
import { chartItemsJson } from "../api/market/chart-json.ts";
import { loadRanking } from "../api/market/ranking.ts";
import { TOKEN_SORTS, tokenPage } from "../api/market/token-query.ts";
import { startServer } from "../api/server.ts";
import { defaultApiSettings } from "../api/settings.ts";
import { createSql, type Sql } from "../lib/db/client.ts";
import { freePort } from "../lib/local/net.ts";
import { LAUNCH_TABLES, portfolioCases, seedPortfolio } from "./bench-api-portfolio.ts";
import { benchDatabase, envNumber } from "./bench-database.ts";
import { treeCpuSeconds } from "./bench-indexer-probes.ts";

const SCHEMA = "bench_onchain";

/**
 * Rows of the table: a name and the path of request `i`, with optional request headers and
 * something to run while the row is driven (started, then stopped by calling what it returns).
 */
type Case = [string, (i: number) => string, Record<string, string>?, (() => () => Promise<void>)?];

/** The endpoints measured, beside /health on the same server. */
function cases(token: (i: number) => string, agents: number, etagOf: string | undefined): Case[] {
  // The rows without it ask as undici's Pool does (no Accept-Encoding): every byte as JSON.
  const gzip = { "accept-encoding": "gzip" };
  const rows: Case[] = [
    ["GET /health (ceiling)", () => "/health"],
    ["GET /tokens/:a/chart 1m x300", (i) => `/tokens/${token(i)}/chart?interval=1m&limit=300`],
    // Every request a new range: what a cache miss costs (the plan, serialisation, no reuse).
    [
      "GET /tokens/:a/chart 1m x300 miss",
      (i) => `/tokens/${token(i)}/chart?interval=1m&limit=300&to=${1_900_000_000 - i}`,
    ],
    // As a browser asks: gzip accepted (the client here does not inflate).
    [
      "GET /tokens/:a/chart 1m x300 gzip",
      (i) => `/tokens/${token(i)}/chart?interval=1m&limit=300`,
      gzip,
    ],
    ["GET /tokens/:a/chart 1h", (i) => `/tokens/${token(i)}/chart?interval=1h`],
    ["GET /tokens/:a/trades x50", (i) => `/tokens/${token(i)}/trades?limit=50`],
    ["GET /tokens/:a/trades x50 gzip", (i) => `/tokens/${token(i)}/trades?limit=50`, gzip],
    ["GET /v2/agents x20", (i) => `/v2/agents?limit=20&offset=${(i * 20) % Math.max(1, agents)}`],
    [
      "GET /v2/agents x20 gzip",
      (i) => `/v2/agents?limit=20&offset=${(i * 20) % Math.max(1, agents)}`,
      gzip,
    ],
    // The platform reads: platform stats, the trade ticker, the runway leaderboard.
    ["GET /v2/stats", () => "/v2/stats"],
    ["GET /v2/trades x50", () => "/v2/trades?limit=50"],
    [
      "GET /v2/trades buy>=0.015 x50",
      () => "/v2/trades?limit=50&side=buy&minBnbAmount=15000000000000000",
    ],
    [
      "GET /v2/agents?sort=runwayDays x20",
      (i) =>
        `/v2/agents?sort=runwayDays&order=asc&limit=20&offset=${(i * 20) % Math.max(1, agents)}`,
    ],
    [
      "GET /v2/agents?sort=treasuryUsd x20",
      (i) => `/v2/agents?sort=treasuryUsd&limit=20&offset=${(i * 20) % Math.max(1, agents)}`,
    ],
    ["GET /tokens x20", () => "/tokens?limit=20"],
    ["GET /tokens x20 gzip", () => "/tokens?limit=20", gzip],
    ["GET /tokens?sort=trending x20", () => "/tokens?sort=trending&limit=20"],
    ["GET /tokens?sort=volume24h x20", () => "/tokens?sort=volume24h&limit=20"],
    ["GET /tokens?sort=marketCap x20", () => "/tokens?sort=marketCap&limit=20"],
    ["GET /tokens?sort=new&q=token 1", () => "/tokens?sort=new&q=token%201&limit=20"],
    ["GET /tokens/:a", (i) => `/tokens/${token(i)}`],
    [
      "GET /udf/history 1h",
      (i) => `/udf/history?symbol=${token(i)}&resolution=60&from=1700000000&to=1800000000`,
    ],
  ];
  if (etagOf) {
    rows.push([
      "GET chart If-None-Match (304)",
      () => `/tokens/${token(0)}/chart?interval=1m&limit=300`,
      { "if-none-match": etagOf },
    ]);
  }
  return rows;
}

/**
 * Drives every case against `base` and prints the table. `/health` is driven again right before
 * each row and the row's share is of that figure: on a shared machine the ceiling moves, and a
 * ceiling measured minutes earlier would flatter or wrong the row.
 */
/** CPU microseconds so far of the API's thread and of Postgres (all its processes). */
type CpuSampler = () => Promise<{ api: number; pg: number }>;

async function measure(
  base: string,
  rows: Case[],
  o: { seconds: number; connections: number; cpu?: CpuSampler },
) {
  console.log(
    `\n${o.connections} keep-alive connections, ${o.seconds} s per endpoint against ${base}; /health driven before each row\n`,
  );
  console.log(
    `endpoint                              req/s  /health  % health   p50 ms   p99 ms   non-2xx  cold ms   bytes${o.cpu ? "  api µs/req  pg µs/req" : ""}`,
  );
  const health = rows[0];
  const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined;
  for (const [name, path, headers, during] of rows) {
    if (only && name !== health?.[0] && !only.test(name)) continue;
    // One request alone first: what the first reader after a block pays (a cache miss, or a
    // ranking computed), printed apart so it does not eat the timed run.
    const t0 = performance.now();
    // fetch() asks for gzip unless told otherwise; the timed client (undici's Pool) does not.
    const plain = { "accept-encoding": "identity", ...headers };
    const coldRes = await fetch(`${base}${path(0)}`, { headers: plain });
    await coldRes.arrayBuffer();
    const cold = performance.now() - t0;
    // Bytes on the wire (compressed when gzipped): beyond a fixed cost, a read's CPU is these.
    const bytes = Number(coldRes.headers.get("content-length") ?? Number.NaN);
    const ceiling = health ? await drive(base, health[1], o) : undefined;
    const stop = during?.();
    const c0 = await o.cpu?.();
    const r = await drive(base, path, { ...o, headers });
    const c1 = await o.cpu?.();
    await stop?.();
    // CPU per request, unlike req/s, barely moves with the machine's load (a share of it).
    const cpu =
      c0 && c1
        ? `${((c1.api - c0.api) / r.count).toFixed(0).padStart(12)}${((c1.pg - c0.pg) / r.count).toFixed(0).padStart(11)}`
        : "";
    const share = ceiling ? `${((100 * r.rps) / ceiling.rps).toFixed(0)}%` : "";
    console.log(
      `${name.padEnd(36)} ${r.rps.toFixed(0).padStart(7)} ${(ceiling?.rps ?? 0).toFixed(0).padStart(8)} ${share.padStart(9)} ${r.p50.toFixed(2).padStart(8)} ${r.p99.toFixed(2).padStart(8)} ${String(r.errors).padStart(9)} ${cold.toFixed(0).padStart(8)} ${(Number.isNaN(bytes) ? "-" : String(bytes)).padStart(7)}${cpu}`,
    );
  }
}

/** `--url`: a live server; tokens and agents come from its own API. */
async function live(base: string, o: { seconds: number; connections: number }) {
  const get = async (path: string) => {
    // Identity: the chart's ETag taken here must be the plain representation's.
    const res = await fetch(`${base}${path}`, { headers: { "accept-encoding": "identity" } });
    return { res, body: (await res.json()) as { data?: Record<string, unknown> } };
  };
  const tokens = (await get("/tokens?sort=marketCap&limit=100")).body.data?.items as
    | { address: string }[]
    | undefined;
  const agents = (await get("/v2/agents?limit=1")).body.data?.total as number | undefined;
  if (!tokens?.length) throw new Error(`${base}/tokens lists no token: nothing to read`);
  const { res } = await get(`/tokens/${tokens[0]?.address}/chart?interval=1m&limit=300`);
  const limit = res.headers.get("ratelimit-limit");
  console.log(
    `live server ${base}: ${tokens.length} tokens, ${agents ?? 0} agents; rate limit per client: ${limit ?? "off"}`,
  );
  const token = (i: number) => tokens[i % tokens.length]?.address as string;
  await measure(base, cases(token, agents ?? 0, res.headers.get("etag") ?? undefined), o);
}

async function main() {
  const urlAt = process.argv.indexOf("--url");
  if (urlAt > 0) {
    const url = process.argv[urlAt + 1];
    if (!url) throw new Error("--url needs the API's base URL, e.g. http://127.0.0.1:3001");
    return live(url.replace(/\/$/, ""), {
      seconds: envNumber("BENCH_SECONDS", 10),
      connections: envNumber("BENCH_CONNECTIONS", 32),
    });
  }
  const trades = envNumber("BENCH_TRADES", 1_000_000);
  const tokens = envNumber("BENCH_TOKENS", 200);
  const agents = envNumber("BENCH_AGENTS", 1_000);
  const seconds = envNumber("BENCH_SECONDS", 10);
  const connections = envNumber("BENCH_CONNECTIONS", 32);
  const db = await benchDatabase("bench-api", 4);
  const { dataDir, sql } = db;
  try {
    const t = performance.now();
    // One connection without the service's statement timeout: bulk seeding is not a request.
    const bulk = createSql(db.url, { max: 1 });
    await bulk`set statement_timeout = 0`;
    await seed(bulk, { trades, tokens, agents });
    await seedPortfolio(bulk, SCHEMA, {
      agents,
      fills: envNumber("BENCH_PERPS_FILLS", 500),
      launches: envNumber("BENCH_LAUNCHES", 2_000),
    });
    await bulk.end({ timeout: 1 });
    console.log(
      `seeded ${trades.toLocaleString("en")} trades over ${tokens} tokens (+ candles, ${agents} agents) in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );
    const port = await freePort();
    const worker = new Worker(new URL(import.meta.url), { workerData: { url: db.url, port } });
    await new Promise((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    const base = `http://127.0.0.1:${port}`;
    const token = (i: number) => tokenAddress(i % tokens);
    if (process.env.BENCH_PLANS) await printPlans(sql, tokens);
    // The ETag of the plain representation (fetch() would ask for gzip and get the `-gz` one).
    const first = await fetch(`${base}/tokens/${token(0)}/chart?interval=1m&limit=300`, {
      headers: { "accept-encoding": "identity" },
    });
    await first.arrayBuffer();
    const rows = cases(token, agents, first.headers.get("etag") ?? undefined);
    rows.push(...portfolioCases(agents));
    // What a chart client sees live: the same latest 300 candles of each token, and every
    // second a new indexed block (a new generation: every answer is read again once).
    rows.push([
      "GET /tokens/:a/chart 1m x300 +block/s",
      (i) => `/tokens/${token(i)}/chart?interval=1m&limit=300`,
      undefined,
      () => newBlockEverySecond(sql),
    ]);
    const cpu: CpuSampler = async () => ({
      api: await workerCpu(worker),
      pg: postgresCpu(dataDir),
    });
    await measure(base, rows, { seconds, connections, cpu });
    await worker.terminate();
  } finally {
    await db.stop();
  }
}

/** CPU microseconds of the server's thread so far. */
function workerCpu(worker: Worker): Promise<number> {
  return new Promise((resolve) => {
    worker.once("message", resolve);
    worker.postMessage("cpu");
  });
}

/**
 * CPU microseconds of the embedded Postgres so far: the postmaster, its live children and
 * those it reaped (Linux /proc; 0 elsewhere).
 */
function postgresCpu(dataDir: string): number {
  try {
    const master = readFileSync(join(dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")[0];
    const seconds = treeCpuSeconds(Number(master));
    return Number.isNaN(seconds) ? 0 : seconds * 1e6;
  } catch {
    return 0;
  }
}

/**
 * Moves the indexed head one block a second (the block number in the checkpoint; its time and
 * the data stay), as Ponder does when a block is indexed. Returns what stops it.
 */
function newBlockEverySecond(sql: Sql): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = sql`update ${sql(SCHEMA)}._ponder_checkpoint set latest_checkpoint = overlay(
      latest_checkpoint placing lpad((substr(latest_checkpoint, 27, 16)::bigint + 1)::text, 16, '0')
      from 27 for 16)`.then(
      () => {},
      (error: unknown) => console.error("moving the indexed head failed:", error),
    ); // postgres.js sends a query only once it is awaited or then'd
  }, 1000);
  return async () => {
    clearInterval(timer);
    await running;
  };
}

const tokenAddress = (i: number) => `0x${(0xb0000 + i).toString(16).padStart(40, "0")}`;

/** The throwaway chain tables (benchmark only), shaped as the published views. */
async function seed(sql: Sql, n: { trades: number; tokens: number; agents: number }) {
  await sql.unsafe(`
    drop schema if exists ${SCHEMA} cascade;
    create schema ${SCHEMA};
    create table ${SCHEMA}.token (
      address text primary key, origin text, name text, symbol text, creator text not null,
      treasury text not null, agent_id numeric(78), pair text not null, launch_vault text,
      total_supply numeric(78) not null, launch_time numeric(78), launch_fee numeric(78),
      status text not null, last_price numeric(78) not null, funds numeric(78) not null,
      offers numeric(78) not null, total_volume_bnb numeric(78) not null,
      trade_count integer not null, holder_count integer not null,
      market_cap_bnb numeric(78) not null, registered_block numeric(78) not null,
      created_block numeric(78), created_at numeric(78), created_tx text,
      graduated_block numeric(78), graduated_at numeric(78), max_raising numeric(78),
      initial_price numeric(78), last_trade_at numeric(78), liquidity_bnb numeric(78),
      liquidity_token numeric(78));
    create table ${SCHEMA}.trade (
      id text primary key, token text not null, venue text not null, side text not null,
      account text not null, token_amount numeric(78) not null, bnb_amount numeric(78) not null,
      fee numeric(78) not null, price numeric(78) not null, block_number numeric(78) not null,
      log_index integer not null, tx_hash text not null, timestamp numeric(78) not null,
      spot numeric(78) not null, bnb_usd numeric(78));
    create table ${SCHEMA}.candle (
      token text not null, interval text not null, bucket_start numeric(78) not null,
      open numeric(78) not null, high numeric(78) not null, low numeric(78) not null,
      close numeric(78) not null, volume_bnb numeric(78) not null,
      volume_token numeric(78) not null, trade_count integer not null,
      open_usd numeric(78), high_usd numeric(78), low_usd numeric(78), close_usd numeric(78),
      volume_usd numeric(78) not null, primary key (token, interval, bucket_start));
    ${LAUNCH_TABLES(SCHEMA)}
    create table ${SCHEMA}.bnb_usd_latest (id text primary key, round numeric(78) not null,
      rate numeric(78) not null, block_number numeric(78) not null);
    insert into ${SCHEMA}.bnb_usd_latest values ('latest', 1, 600e18, 1);
    create table ${SCHEMA}._ponder_checkpoint (chain_name text, chain_id bigint,
      safe_checkpoint varchar(75), latest_checkpoint varchar(75), finalized_checkpoint varchar(75));`);
  const per = Math.ceil(n.trades / n.tokens);
  await sql`insert into ${sql(SCHEMA)}.token
    select '0x' || lpad(to_hex(${0xb0000} + i), 40, '0'), 'registry', 'Token ' || i, 'T' || i,
      '0x' || lpad(to_hex(i + 1), 40, '0'), '0x' || lpad(to_hex(i + 2), 40, '0'), i,
      '0x' || lpad(to_hex(i + 3), 40, '0'), null, 1e27, 0, 0, 'curve', 1e10 + i, 1e18 * (i % 18),
      1e26, 1e21 + i, ${per}, 100, 1e19 + (i::bigint * 7919) % 100000 * 1e12, i, i, 1700000000 + i,
      null, null, null, 18e18, 1e10, null, null, null
    from generate_series(0, ${n.tokens - 1}) i`;
  // One trade a block every 3 s per token, newest at the end; prices wander deterministically.
  await sql`insert into ${sql(SCHEMA)}.trade
    select t || ':' || k, '0x' || lpad(to_hex(${0xb0000} + t), 40, '0'),
      case when k % 10 = 0 then 'dex' else 'curve' end, case when k % 3 = 0 then 'sell' else 'buy' end,
      '0x' || lpad(to_hex(k % 5000), 40, '0'), 1e21 + k, 1e16 + (k % 97) * 1e14, 1e14,
      1e13 + ((k * 7919) % 100000) * 1e7, 1000 + k, t, '0x' || lpad(to_hex(t::bigint * 1000000 + k), 64, '0'),
      1700000000 + k * 3, 1e13 + ((k * 7919) % 100000) * 1e7, 600e18
    from generate_series(0, ${n.tokens - 1}) t, generate_series(0, ${per - 1}) k
    limit ${n.trades}`;
  // The same indexes as ponder.schema.ts declares.
  await sql.unsafe(`create index on ${SCHEMA}.trade (token, block_number, log_index);
    create index on ${SCHEMA}.trade (token, timestamp); create index on ${SCHEMA}.trade (timestamp);
    create index on ${SCHEMA}.trade (block_number, log_index);
    create index on ${SCHEMA}.token (registered_block, address);
    create index on ${SCHEMA}.token (market_cap_bnb, address);
    create index on ${SCHEMA}.token (total_volume_bnb, address);
    create index on ${SCHEMA}.token (creator);
    create index on ${SCHEMA}.candle (interval, bucket_start);`);
  // The indexed head: the newest trade's time, so the 24-hour window holds the last day of trades.
  await sql`insert into ${sql(SCHEMA)}._ponder_checkpoint
    select 'bench', 56, c, c, c from (select lpad(max(timestamp)::text, 10, '0') || lpad('56', 16, '0')
      || lpad('1', 16, '0') || repeat('0', 33) as c from ${sql(SCHEMA)}.trade) x`;
  for (const [interval, s] of [
    ["1m", 60],
    ["5m", 300],
    ["15m", 900],
    ["1h", 3600],
    ["4h", 14400],
    ["1d", 86400],
  ] as const) {
    await sql`insert into ${sql(SCHEMA)}.candle
      select token, ${interval}, b, (array_agg(price order by block_number))[1], max(price), min(price),
        (array_agg(price order by block_number desc))[1], sum(bnb_amount), sum(token_amount), count(*),
        (array_agg(price * 600 order by block_number))[1], max(price) * 600, min(price) * 600,
        (array_agg(price * 600 order by block_number desc))[1], sum(bnb_amount) * 600
      from (select *, floor(timestamp / ${s}) * ${s} as b from ${sql(SCHEMA)}.trade) x
      group by token, b`;
  }
  // Runway figures as the NAV job stores them (every seventh agent not valued yet).
  await sql`insert into app.agents (agent_id, name, ticker, description, image_url, status,
      wallet_address, treasury_address, token_address, launched_at, treasury_usd,
      monthly_burn_usd, runway_days, runway_block, runway_at)
    select 'agent-' || i, 'Agent ' || i, 'AG' || i, 'A benchmark agent.', 'https://img.example/a.png',
      'pending', '0x' || lpad(to_hex(i + 7), 40, '0'), '0x' || lpad(to_hex(i + 8), 40, '0'),
      '0x' || lpad(to_hex(${0xb0000} + i), 40, '0'), now() - i * interval '1 minute',
      case when i % 7 = 0 then null else (i * 7919) % 100000 / 100.0 end,
      case when i % 7 = 0 then null else 10 + i % 300 end,
      case when i % 7 = 0 then null else ((i * 7919) % 100000 / 100.0 * 30 / (10 + i % 300))::numeric(30, 6) end,
      1, now()
    from generate_series(0, ${n.agents - 1}) i
    on conflict do nothing`;
  await sql.unsafe(
    `analyze ${SCHEMA}.token; analyze ${SCHEMA}.trade; analyze ${SCHEMA}.candle; analyze app.agents`,
  );
}

/** EXPLAIN ANALYZE of the `/tokens` page query of every sort and the hot reads (BENCH_PLANS=1). */
async function printPlans(sql: Sql, tokens: number) {
  const [row] = await sql`select max(timestamp)::bigint::text as now from ${sql(SCHEMA)}.trade`;
  const now = Number(row?.now);
  for (const sort of TOKEN_SORTS) {
    const { page } = tokenPage(sql, SCHEMA, {
      sort,
      desc: true,
      now,
      filter: {},
      limit: 20,
      offset: 0,
    });
    const plan = await sql<{ "QUERY PLAN": string }[]>`explain (analyze, costs off) ${page}`;
    console.log(`\n/tokens?sort=${sort}\n${plan.map((p) => p["QUERY PLAN"]).join("\n")}`);
  }
  // What volume24h and trending cost now: one ranking per indexed generation (the page query
  // above is what every request paid before).
  for (const sort of ["volume24h", "trending"] as const) {
    const t0 = performance.now();
    const rows = await loadRanking(sql, SCHEMA, sort, now);
    console.log(
      `\nranking ${sort}: ${rows.length.toLocaleString("en")} tokens in ${(performance.now() - t0).toFixed(0)} ms (once per indexed generation)`,
    );
  }
  const a = tokenAddress(Math.floor(tokens / 2));
  const s = sql(SCHEMA);
  const reads: [string, ReturnType<Sql>][] = [
    [
      "chart 1m x300",
      sql`select * from ${s}.candle where token = ${a} and interval = '1m'
        order by bucket_start desc limit 300`,
    ],
    [
      "trades x50",
      sql`select * from ${s}.trade where token = ${a}
        order by token desc, block_number desc, log_index desc limit 51`,
    ],
    [
      "/v2/agents x20",
      sql`with a as (select a.*, t.status as live_status from app.agents a
          left join ${s}.token t on t.address = a.token_address where a.token_address is not null)
        select a.*, count(*) over () as total from a order by a.launched_at desc nulls last, a.agent_id
        limit 20 offset 0`,
    ],
  ];
  // A chart miss built both ways, interleaved over the tokens: the row objects of
  // readCandles + toCandle + JSON.stringify, and the JSON text Postgres writes (the route's).
  const times: { objects: number[]; json: number[] } = { objects: [], json: [] };
  for (let i = 0; i < 100; i++) {
    const p = {
      address: tokenAddress(i % tokens),
      interval: "1m",
      currency: "bnb",
      limit: 300,
    } as const;
    let t = performance.now();
    const bars = await readCandles(sql, SCHEMA, { ...p, fill: false, now });
    strongEtag(
      JSON.stringify({ ok: true, data: { ...p, items: bars.map((b) => toCandle(b, "bnb")) } }),
    );
    times.objects.push(performance.now() - t);
    t = performance.now();
    const { items } = await chartItemsJson(sql, SCHEMA, p);
    strongEtag(new TextEncoder().encode(`{"ok":true,"data":{"items":[${items}]}}`));
    times.json.push(performance.now() - t);
  }
  const median = (v: number[]) => v.sort((x, y) => x - y)[v.length >> 1]?.toFixed(2);
  console.log(
    `\nchart 1m x300 miss, built and hashed (median of 100): objects ${median(times.objects)} ms, JSON from Postgres ${median(times.json)} ms`,
  );
  for (const [name, q] of reads) {
    const plan = await sql<{ "QUERY PLAN": string }[]>`explain (analyze, costs off) ${q}`;
    console.log(`\n${name}\n${plan.map((p) => p["QUERY PLAN"]).join("\n")}`);
  }
}

async function serveInWorker(d: { url: string; port: number }) {
  const sql = createSql(d.url, { max: 20 });
  const logger = pino({ level: "silent" });
  const app = createApp({
    logger,
    env: "bench",
    sql,
    // The limiter stays in the path (one upsert per request), with a budget no client reaches.
    settings: defaultApiSettings({ viewsSchema: SCHEMA, rateLimit: { unauthenticated: 1e9 } }),
  });
  await startServer({ app, host: "127.0.0.1", port: d.port, logger });
  parentPort?.postMessage("ready");
  parentPort?.on("message", () => {
    const u = process.threadCpuUsage();
    parentPort?.postMessage(u.user + u.system);
  });
}

/** Closed-loop load: `connections` clients each send the next request when one answers. */
async function drive(
  base: string,
  path: (i: number) => string,
  o: { seconds: number; connections: number; headers?: Record<string, string> },
) {
  const pool = new Pool(base, { connections: o.connections, pipelining: 1 });
  const latencies: number[] = [];
  let errors = 0;
  let i = 0;
  const until = performance.now() + o.seconds * 1000;
  const client = async () => {
    while (performance.now() < until) {
      const started = performance.now();
      const res = await pool.request({ method: "GET", path: path(i++), headers: o.headers });
      await res.body.arrayBuffer();
      // A conditional row expects 304 only: a 200 there means the ETag did not hold.
      const expected = o.headers?.["if-none-match"] ? 304 : 200;
      if (res.statusCode !== expected) errors++;
      latencies.push(performance.now() - started);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: o.connections }, client));
  const elapsed = (performance.now() - t0) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const q = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
  return {
    rps: latencies.length / elapsed,
    p50: q(0.5),
    p99: q(0.99),
    errors,
    count: latencies.length,
  };
}

// Last, so every declaration above is initialised before either side runs.
if (isMainThread) await main();
else await serveInWorker(workerData as { url: string; port: number });
