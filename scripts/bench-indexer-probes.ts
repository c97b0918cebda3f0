// Measurements for `npm run bench:indexer` (scripts/bench-indexer.ts): Ponder's /metrics and log
// lines, raw JSON-RPC answers, and CPU time per process from /proc.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import type { Sql } from "postgres";
import { type PublicClient, toHex } from "viem";
import { INDEXER_RPC_LIMITS } from "../lib/limits.ts";

/** Events Ponder's indexing functions completed (its /metrics counter, summed over events). */
export async function completedEvents(ponderPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${ponderPort}/metrics`)).text();
  let total = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith("ponder_indexing_completed_events{"))
      total += Number(line.split(" ").at(-1));
  }
  return total;
}

/**
 * Ponder's own split of the backfill (ms): extract (RPC + sync store) vs transform (indexing),
 * the transform's steps, each indexing function's total, and RPC time per method.
 */
export async function timeSplit(ponderPort: number): Promise<string> {
  const text = await (await fetch(`http://127.0.0.1:${ponderPort}/metrics`)).text();
  const wanted = [
    /^ponder_historical_concurrency_group_duration\{/,
    /^ponder_historical_extract_duration\{/,
    /^ponder_historical_transform_duration\{/,
    /^ponder_indexing_function_duration_(sum|count)\{/,
    /^ponder_rpc_request_duration_(sum|count)\{/,
  ];
  return text
    .split("\n")
    .filter((line) => wanted.some((re) => re.test(line)))
    .map((line) => `  ${line}`)
    .join("\n");
}

/** The duration (ms) of Ponder's JSON log line whose message starts with `msg`. */
export function loggedDuration(output: string, msg: string): number {
  for (const line of output.split("\n")) {
    if (!line.includes(msg)) continue;
    const duration = (JSON.parse(line) as { duration?: number }).duration;
    if (typeof duration === "number") return duration;
  }
  throw new Error(`Ponder logged no "${msg}" duration`);
}

/** One JSON-RPC call, the size of its answer in bytes and its time (ms). */
export async function rpcBytes(url: string, method: string, params: unknown[]) {
  const t0 = performance.now();
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const text = await res.text();
  return {
    ms: performance.now() - t0,
    bytes: Buffer.byteLength(text),
    result: (JSON.parse(text) as { result: unknown }).result,
  };
}

const TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** /proc/<pid>/stat fields after the command: [state, ppid, ..., utime (11), stime, cutime, cstime]. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds (user + system) used so far by `pid` and every process below it, the reaped ones
 * included (Postgres' exited backends are in the postmaster's cutime). Linux only: NaN elsewhere.
 * Load from other processes does not count, so these compare across runs better than wall time.
 */
export function treeCpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  const own = statFields(pid);
  if (!own) return Number.NaN;
  const ticks = (f: string[], from: number, to: number) =>
    f.slice(from, to + 1).reduce((sum, v) => sum + Number(v), 0);
  let total = ticks(own, 11, 14);
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const f = statFields(Number(name));
    if (!f) continue;
    const parent = Number(f[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
  }
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      const f = statFields(c);
      if (f) total += ticks(f, 11, 14);
      walk(c);
    }
  };
  walk(pid);
  return total / TICKS;
}

/**
 * Every block of [from, to] with its transactions, `INDEXER_RPC_LIMITS.concurrency` at a time:
 * wall time, transactions, and the node's CPU per transaction (`nodeCpu` in seconds).
 */
export async function wholeBlocks(
  client: PublicClient,
  from: number,
  to: number,
  nodeCpu: () => number,
) {
  const t0 = performance.now();
  const cpu0 = nodeCpu();
  let transactions = 0;
  let next = from;
  await Promise.all(
    Array.from({ length: INDEXER_RPC_LIMITS.concurrency }, async () => {
      for (let n = next++; n <= to; n = next++) {
        const block = await client.request({
          method: "eth_getBlockByNumber",
          params: [toHex(n), true],
        });
        transactions += block?.transactions.length ?? 0;
      }
    }),
  );
  return {
    seconds: (performance.now() - t0) / 1000,
    transactions,
    cpuUsPerTx: ((nodeCpu() - cpu0) * 1e6) / transactions,
  };
}

/** Ponder's log lines at the start and at the end of its backfill. */
const MARKS = ["Started fetching backfill", "Completed backfill indexing"] as const;

/**
 * Samples each process tree's CPU when Ponder logs the start and the end of its backfill
 * (watching `output`); `perEvent(n)` gives each one's CPU µs per event between the two.
 */
export function cpuMarks<K extends string>(
  output: () => string,
  pids: Record<K, number | undefined>,
) {
  const keys = Object.keys(pids) as K[];
  const sample = () =>
    Object.fromEntries(keys.map((k) => [k, treeCpuSeconds(pids[k])])) as Record<K, number>;
  const seen = new Map<string, Record<K, number>>();
  const timer = setInterval(() => {
    for (const m of MARKS) if (!seen.has(m) && output().includes(m)) seen.set(m, sample());
  }, 50);
  return {
    stop: () => clearInterval(timer),
    perEvent: (events: number): Record<K, number> | undefined => {
      const [a, b] = MARKS.map((m) => seen.get(m));
      if (!a || !b) return undefined;
      return Object.fromEntries(keys.map((k) => [k, ((b[k] - a[k]) * 1e6) / events])) as Record<
        K,
        number
      >;
    },
  };
}

/** What Ponder's sync keeps: ponder_sync's rows and bytes on disk (tables with their indexes). */
export async function syncStoreSize(sql: Sql) {
  const [row] = await sql<{ transactions: number; logs: number; blocks: number; bytes: number }[]>`
    select
      (select count(*) from ponder_sync.transactions)::int as transactions,
      (select count(*) from ponder_sync.logs)::int as logs,
      (select count(*) from ponder_sync.blocks)::int as blocks,
      (select sum(pg_total_relation_size(c.oid)) from pg_class c
        join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'ponder_sync' and c.relkind = 'r')::float8 as bytes`;
  return row as { transactions: number; logs: number; blocks: number; bytes: number };
}
