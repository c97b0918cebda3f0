import type { Sql } from "../db/client.ts";
import { beat, readHeartbeat } from "../heartbeat/index.ts";
import { INDEXER_LAG_LIMITS } from "../limits.ts";
import { startTicker } from "../ticker.ts";
import { readCheckpoints } from "./status.ts";

/** What the indexer role records in its heartbeat (app.role_heartbeats, role "indexer"). */
export type IndexerProgress = {
  schema: string;
  indexedBlock: number | null;
  headBlock: number | null;
  /** Wall-clock seconds since the chain first moved past the indexed block (0 at the head). */
  lagSeconds: number;
  /** When the indexed block last changed (ISO), or when the tracker started. */
  advancedAt: string;
  /** When the head last changed (ISO): the RPC answers and the chain moves. */
  headMovedAt: string | null;
  /**
   * When the role last started its Ponder (ISO); null while it waits to start it again (the
   * database is away). Absent from a role that does not say. The watchdog judges a stall from it.
   */
  ponderStartedAt?: string | null;
};

/**
 * Follows the index against the chain head in wall-clock time. Block timestamps cannot date a
 * lag: on the devnet `evm_increaseTime` (devnet seed) puts them ahead of the clock for good.
 * So the tracker remembers when it first saw each head and dates the lag from the first head
 * past the indexed block.
 */
export function lagTracker(schema: string, history: number = INDEXER_LAG_LIMITS.headHistory) {
  const heads: { block: number; seenAt: number }[] = [];
  let last: { indexedBlock: number | null; advancedAt: number } | undefined;
  let headMovedAt: number | null = null;
  return {
    observe(o: { indexedBlock: number | null; headBlock: number | null; now: number }) {
      const top = heads.at(-1);
      if (o.headBlock !== null && (!top || o.headBlock > top.block)) {
        heads.push({ block: o.headBlock, seenAt: o.now });
        if (heads.length > history) heads.shift();
        headMovedAt = o.now;
      }
      if (!last || last.indexedBlock !== o.indexedBlock)
        last = { indexedBlock: o.indexedBlock, advancedAt: o.now };
      // Dated from the first head seen past the indexed block (at worst the oldest one kept).
      const indexed = o.indexedBlock ?? -1;
      const passed = heads.find((h) => h.block > indexed);
      const lagSeconds = passed ? Math.max(0, (o.now - passed.seenAt) / 1000) : 0;
      const progress: IndexerProgress = {
        schema,
        indexedBlock: o.indexedBlock,
        headBlock: o.headBlock,
        lagSeconds: Math.round(lagSeconds * 10) / 10,
        advancedAt: new Date(last.advancedAt).toISOString(),
        headMovedAt: headMovedAt === null ? null : new Date(headMovedAt).toISOString(),
      };
      return progress;
    },
  };
}

/**
 * The indexer role's loop: every `checkEveryMs` reads the deployment's checkpoint and the head,
 * and writes the progress as its heartbeat. A failed round is retried at the next tick.
 */
export function startLagTracking(p: {
  sql: Sql;
  schema: () => string;
  headBlock: () => Promise<number | null>;
  /** When the role last started Ponder (ms), or null while it waits to start it again. */
  ponderStartedAt?: () => number | null;
  everyMs?: number;
  onError?: (error: unknown) => void;
}) {
  const trackers = new Map<string, ReturnType<typeof lagTracker>>();
  const round = async () => {
    const schema = p.schema();
    const tracker = trackers.get(schema) ?? lagTracker(schema);
    trackers.clear();
    trackers.set(schema, tracker);
    const [index, head] = await Promise.all([readCheckpoints(p.sql, schema), p.headBlock()]);
    const indexed = index?.chains[0]?.block;
    const progress = tracker.observe({
      indexedBlock: indexed === undefined ? null : Number(indexed),
      headBlock: head,
      now: Date.now(),
    });
    const started = p.ponderStartedAt?.();
    if (started !== undefined)
      progress.ponderStartedAt = started === null ? null : new Date(started).toISOString();
    await beat(p.sql, "indexer", progress);
  };
  return startTicker({
    tick: round,
    everyMs: p.everyMs ?? INDEXER_LAG_LIMITS.checkEveryMs,
    immediately: true,
    onError: p.onError,
  });
}

/**
 * Reads the head block with `eth_blockNumber` from the first of `urls` that answers within
 * `timeoutMs`, or undefined. The API's status and the indexer role's lag tracking share it.
 *
 * @example
 * const head = await rpcHeadBlock(["http://127.0.0.1:8545"])(); // 1234n
 */
export function rpcHeadBlock(urls: string[], timeoutMs = INDEXER_LAG_LIMITS.headTimeoutMs) {
  return async (): Promise<bigint | undefined> => {
    for (const url of urls) {
      try {
        const res = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }),
          signal: AbortSignal.timeout(timeoutMs),
        });
        const body = (await res.json()) as { result?: string };
        if (body.result) return BigInt(body.result);
      } catch {}
    }
    return undefined;
  };
}

/**
 * `read` shared by every caller for `maxAgeMs`: the first call starts one read, and every call
 * until it is `maxAgeMs` old gets that read's answer (in flight or done). A route that answers
 * anyone then costs at most one RPC call per `maxAgeMs` per process, however many ask.
 *
 * @example
 * const head = sharedHead(rpcHeadBlock(urls), 1_000);
 * await Promise.all([head(), head(), head()]); // one eth_blockNumber
 */
export function sharedHead<T>(
  read: () => Promise<T>,
  maxAgeMs: number,
  now: () => number = Date.now,
): () => Promise<T> {
  let last: { at: number; answer: Promise<T> } | undefined;
  return () => {
    const at = now();
    if (last && at - last.at < maxAgeMs) return last.answer;
    last = { at, answer: read() };
    return last.answer;
  };
}

/**
 * `rpcHeadBlock` as a number, or null: the form the lag tracker stores.
 *
 * @example
 * const head = await rpcHeadNumber(["http://127.0.0.1:8545"])(); // 1234
 */
export function rpcHeadNumber(urls: string[], timeoutMs = INDEXER_LAG_LIMITS.headTimeoutMs) {
  const read = rpcHeadBlock(urls, timeoutMs);
  return async (): Promise<number | null> => {
    const head = await read();
    return head === undefined ? null : Number(head);
  };
}

/** The index's freshness as the status and health routes report it. */
export type IndexerFreshness = {
  /** Seconds the index is behind, by the wall clock; null when the indexer never reported. */
  lagSeconds: number | null;
  /** Behind for longer than `staleAfterSeconds`, or behind with no report from the indexer. */
  stale: boolean;
  /** When the indexer role last reported (ISO), or null. */
  reportedAt: string | null;
};

/**
 * Judges the index from a live read (`lagBlocks`: head minus checkpoint now, null when the RPC
 * did not answer) and the indexer role's last report. Between reports the lag keeps growing
 * with the clock while the index stays behind: a dead indexer role goes stale too.
 *
 * @example
 * const f = await readFreshness({ sql, lagBlocks: 3 }); // { lagSeconds: 2.1, stale: false, … }
 */
export async function readFreshness(p: {
  sql: Sql;
  lagBlocks: number | null;
  now?: number;
  staleAfterSeconds?: number;
}): Promise<IndexerFreshness> {
  const hb = await readHeartbeat(p.sql, "indexer").catch(() => undefined);
  return judgeFreshness({
    lagBlocks: p.lagBlocks,
    report: hb ? { at: hb.beatAt.getTime(), progress: hb.detail as IndexerProgress } : undefined,
    now: p.now ?? Date.now(),
    staleAfterSeconds: p.staleAfterSeconds ?? INDEXER_LAG_LIMITS.staleAfterSeconds,
  });
}

/** The pure part of `readFreshness`. */
export function judgeFreshness(p: {
  lagBlocks: number | null;
  report: { at: number; progress: IndexerProgress } | undefined;
  now: number;
  staleAfterSeconds: number;
}): IndexerFreshness {
  const reportedAt = p.report ? new Date(p.report.at).toISOString() : null;
  if (p.lagBlocks === 0) return { lagSeconds: 0, stale: false, reportedAt };
  if (!p.report) return { lagSeconds: null, stale: p.lagBlocks !== null, reportedAt };
  const { progress } = p.report;
  const behind = p.lagBlocks ?? (progress.headBlock ?? 0) - (progress.indexedBlock ?? 0);
  if (behind <= 0) return { lagSeconds: 0, stale: false, reportedAt };
  const since = Math.max(0, (p.now - p.report.at) / 1000);
  const lagSeconds = Math.round((progress.lagSeconds + since) * 10) / 10;
  return { lagSeconds, stale: lagSeconds > p.staleAfterSeconds, reportedAt };
}
