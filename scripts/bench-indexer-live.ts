// The live phase of `npm run bench:indexer`: blocks of trades mined one at a time, each timed
// from `evm_mine` to its trades being readable through the views, and split along the way with
// Ponder's own log lines (debug level, JSON, `time` in ms on the same clock):
//   mine    the bench's `evm_mine` call (the node sealing the block)
//   detect  mined -> Ponder's "Received new head block" (its poll, or a newHeads push)
//   fetch   -> "Added block to local chain" (the block and its logs fetched, reconciled)
//   queue   -> indexing starts (Ponder's "Indexed block" time minus its duration)
//   index   -> "Indexed block": handlers, flush, reorg-table writes and the commit
//   read    -> the bench's select through the views sees the block's trades
// The floor in the same run: what the node alone takes for the minimum an indexer must do for a
// block (mine it, read the block and its logs by hash) plus one select through the views.
import type postgres from "postgres";
import { type Hex, type PublicClient, type TestClient, toHex } from "viem";
import type { PonderRun } from "../test/helpers/ponder.ts";
import { percentile } from "./soak-report.ts";

/** The live lag target (block mined to rows readable through the views). */
export const LIVE_LAG_TARGET_MS = 500;

type Marks = { mine0: number; mined: number; visible: number };

/**
 * An empty block a second, as the devnet's own miner: after its backfill (up to the finalized
 * block) Ponder reads the unfinalized blocks at the first new head, and a subscription gets
 * none from a chain that mines only on demand. Returns the stop.
 */
export function startMiner(test: TestClient): () => void {
  const timer = setInterval(() => void test.mine({ blocks: 1 }).catch(() => {}), 1_000);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Waits until Ponder has indexed `head` live, stops the miner and waits for its last block:
 * the lag figures start from a quiet index. Prints how long that took after ready.
 */
export async function catchUp(p: {
  client: PublicClient;
  run: PonderRun;
  head: number;
  stopMiner: () => void;
}): Promise<void> {
  const t0 = Date.now();
  const indexed = () =>
    Math.max(
      -1,
      ...[...ponderMarks(p.run.output()).entries()]
        .filter(([, m]) => m.indexed !== undefined)
        .map(([n]) => n),
    );
  while (indexed() < p.head) await new Promise((r) => setTimeout(r, 100));
  p.stopMiner();
  await new Promise((r) => setTimeout(r, 200));
  const last = Number(await p.client.getBlockNumber({ cacheTime: 0 }));
  while (indexed() < last) await new Promise((r) => setTimeout(r, 100));
  // Ponder's clock: from live indexing's start to the backfill's head indexed live (the
  // unfinalized blocks read at the first new head), as after every start of the indexer.
  const lines = p.run.output().split("\n");
  const time = (pred: (l: { msg?: string; number?: number }) => boolean) => {
    for (const line of lines) {
      if (!line.startsWith("{")) continue;
      const l = JSON.parse(line) as { msg?: string; number?: number; time: number };
      if (pred(l)) return l.time;
    }
    return Number.NaN;
  };
  const live = time((l) => l.msg === "Started live indexing");
  const atHead = time((l) => l.msg === "Indexed block" && (l.number ?? 0) >= p.head);
  console.log(
    `live catch-up after the backfill: block ${p.head} indexed ${atHead - live} ms after live indexing started (${Date.now() - t0} ms in all; the lag figures start after it)`,
  );
}

/** Mines `blocks` blocks of `perBlock` buys, one at a time, and prints the lag and its split. */
export async function liveLag(p: {
  client: PublicClient;
  test: TestClient;
  sql: postgres.Sql;
  run: PonderRun;
  viewsSchema: string;
  blocks: number;
  perBlock: number;
  /** Signed raw transactions for the i-th live block. */
  batch: (block: number) => Promise<Hex[]>;
  sendAll: (txs: Hex[]) => Promise<void>;
}): Promise<void> {
  const marks = new Map<number, Marks>();
  const floors: number[] = [];
  const metrics0 = await ponderMetrics(p.run.port);
  for (let b = 0; b < p.blocks; b++) {
    await p.sendAll(await p.batch(b));
    const mine0 = Date.now();
    await p.test.mine({ blocks: 1 });
    const mined = Date.now();
    const block = await p.client.getBlock({ blockTag: "latest" });
    const n = Number(block.number);
    // Wait for the block's successful buys (a reverted buy has no trade to wait for).
    const receipts = (await p.client.request({
      method: "eth_getBlockReceipts" as never,
      params: [toHex(n)] as never,
    })) as { status: Hex }[] | null;
    const expected = (receipts ?? []).filter((r) => r.status === "0x1").length;
    for (;;) {
      const [r] = await p.sql`
        select count(*)::int as n from ${p.sql(p.viewsSchema)}.trade where block_number = ${n}`;
      if ((r?.n ?? 0) >= expected) break;
      await new Promise((res) => setTimeout(res, 5));
    }
    marks.set(n, { mine0, mined, visible: Date.now() });
    // The floor, once Ponder is done with the block (so the two do not share the CPU):
    // the block and its logs by hash, and one select through the views.
    const f0 = Date.now();
    await Promise.all([
      p.client.request({ method: "eth_getBlockByHash", params: [block.hash as Hex, true] }),
      p.client.request({ method: "eth_getLogs", params: [{ blockHash: block.hash as Hex }] }),
    ]);
    await p.sql`select count(*)::int as n from ${p.sql(p.viewsSchema)}.trade where block_number = ${n}`;
    floors.push(mined - mine0 + Date.now() - f0);
  }
  const metrics1 = await ponderMetrics(p.run.port);
  const ponder = ponderMarks(p.run.output(), new Set(marks.keys()));
  const total: number[] = [];
  const split: Record<string, number[]> = {
    mine: [],
    detect: [],
    fetch: [],
    queue: [],
    index: [],
    read: [],
  };
  for (const [n, m] of marks) {
    total.push(m.visible - m.mine0);
    const q = ponder.get(n);
    if (!q?.head || !q.added || !q.indexed) continue;
    split.mine?.push(m.mined - m.mine0);
    split.detect?.push(q.head - m.mined);
    split.fetch?.push(q.added - q.head);
    split.queue?.push(q.indexed - q.indexDuration - q.added);
    split.index?.push(q.indexDuration);
    split.read?.push(m.visible - q.indexed);
  }
  console.log(
    `live lag (block mined -> its ${p.perBlock} trades in the views, ${total.length} blocks): p50 ${pct(total, 50)} ms, p99 ${pct(total, 99)} ms, max ${pct(total, 100)} ms (target p99 < ${LIVE_LAG_TARGET_MS} ms; node floor p50 ${pct(floors, 50)} ms, p99 ${pct(floors, 99)} ms)`,
  );
  console.log(`  where it went (ms, ${split.index?.length} blocks with Ponder's marks):`);
  for (const [name, xs] of Object.entries(split)) {
    console.log(
      `    ${name.padEnd(7)} p50 ${pct(xs, 50).padStart(5)}  p99 ${pct(xs, 99).padStart(5)}  max ${pct(xs, 100).padStart(5)}  mean ${mean(xs).padStart(5)}`,
    );
  }
  // Inside "index": the handlers' reads that missed Ponder's cache (one query each) and the
  // handlers' own time, per live block, from Ponder's /metrics over the live phase.
  const delta = (name: string) => (metrics1.get(name) ?? 0) - (metrics0.get(name) ?? 0);
  const perBlock = (x: number) => (x / Math.max(1, marks.size)).toFixed(1);
  const misses = [...metrics1.keys()]
    .filter(
      (k) => k.startsWith("ponder_indexing_cache_requests_total{") && k.includes('type="miss"'),
    )
    .map((k) => [/table="([^"]+)"/.exec(k)?.[1], delta(k)] as const)
    .filter(([, n]) => n / Math.max(1, marks.size) >= 0.05)
    .map(([t, n]) => `${t} ${perBlock(n)}`);
  const findMs = [...metrics1.keys()]
    .filter(
      (k) =>
        k.startsWith("ponder_indexing_cache_query_duration_sum{") && k.includes('method="find"'),
    )
    .reduce((a, k) => a + delta(k), 0);
  const handlerMs = [...metrics1.keys()]
    .filter((k) => k.startsWith("ponder_indexing_function_duration_sum{"))
    .reduce((a, k) => a + delta(k), 0);
  console.log(
    `  inside index, per block: handlers ${perBlock(handlerMs)} ms, of which cache-miss reads ${perBlock(findMs)} ms (${misses.join(", ") || "none"} rows read one at a time)`,
  );
  // The slowest blocks, split: what a p99 is made of.
  const slow = [...marks.entries()]
    .sort((a, b) => b[1].visible - b[1].mine0 - (a[1].visible - a[1].mine0))
    .slice(0, 3);
  for (const [n, m] of slow) {
    const q = ponder.get(n);
    const parts = q?.head
      ? `detect ${q.head - m.mined}, fetch ${(q.added ?? 0) - q.head}, queue ${(q.indexed ?? 0) - (q.indexDuration ?? 0) - (q.added ?? 0)}, index ${q.indexDuration}, read ${m.visible - (q.indexed ?? 0)}`
      : "no marks";
    console.log(
      `  slow block ${n}: ${m.visible - m.mine0} ms (mine ${m.mined - m.mine0}, ${parts})`,
    );
  }
}

/** Ponder's /metrics as series -> value. */
async function ponderMetrics(port: number): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line.startsWith("ponder_")) continue;
    const i = line.lastIndexOf(" ");
    out.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return out;
}

type PonderMark = { head?: number; added?: number; indexed?: number; indexDuration: number };

/** Ponder's first time per live block for each of its per-block log lines. */
function ponderMarks(output: string, wanted?: Set<number>): Map<number, PonderMark> {
  const out = new Map<number, PonderMark>();
  for (const line of output.split("\n")) {
    if (!line.includes('"number"')) continue;
    let log: { msg?: string; number?: number; time?: number; duration?: number };
    try {
      log = JSON.parse(line);
    } catch {
      continue;
    }
    if (log.number === undefined || log.time === undefined || (wanted && !wanted.has(log.number)))
      continue;
    const m = out.get(log.number) ?? { indexDuration: 0 };
    if (log.msg === "Received new head block") m.head ??= log.time;
    else if (log.msg === "Added block to local chain") m.added ??= log.time;
    else if (log.msg === "Indexed block" && m.indexed === undefined) {
      m.indexed = log.time;
      m.indexDuration = Math.round(log.duration ?? 0);
    }
    out.set(log.number, m);
  }
  return out;
}

function pct(xs: number[], p: number): string {
  return xs.length === 0 ? "-" : String(Math.round(percentile(xs, p / 100)));
}

function mean(xs: number[]): string {
  return xs.length === 0 ? "-" : String(Math.round(xs.reduce((a, b) => a + b, 0) / xs.length));
}
