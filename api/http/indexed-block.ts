// The one per-process view of how far the index is: the header `X-Indexed-Block`, the list
// envelopes' `indexedBlock`, the 24-hour window's "now" and the read cache's key all come from it.
import type { Sql } from "../../lib/db/client.ts";
import { isMissingRelation, view } from "../../lib/db/views.ts";
import { READ_CACHE_LIMITS } from "../limits.ts";

export type IndexedState = {
  /**
   * Moves whenever the indexed checkpoint or an app table the reads join (app.read_versions)
   * changes, in either direction: a reorg that rolls the index back is a new generation too.
   */
  gen: number;
  /** Newest indexed block (decimal), null before Ponder published anything. */
  block: string | null;
  /** Its timestamp (unix seconds): the chain's clock as indexed. */
  time: number | null;
};

export type IndexedBlockTracker = {
  /** The state as of at most `indexedBlockMaxAgeMs` ago (reads it again when older). */
  current(): Promise<IndexedState>;
  /**
   * Forget the last reading: this process just wrote an app table the reads join, so its next
   * read must see that write (a client reading its own write through the same process).
   */
  invalidate(): void;
};

/**
 * Tracks the indexed checkpoint with one small query per `maxAgeMs` at most, made by whichever
 * request finds the last reading too old (no timer: an idle process queries nothing and a test
 * never waits on a poll). Concurrent requests share one query.
 *
 * @example
 * const tracker = indexedBlockTracker(sql, "onchain");
 * const { block, gen } = await tracker.current(); // { block: "1234", gen: 7, ... }
 */
export function indexedBlockTracker(
  sql: Sql,
  schema: string,
  maxAgeMs: number = READ_CACHE_LIMITS.indexedBlockMaxAgeMs,
): IndexedBlockTracker {
  let state: IndexedState = { gen: 0, block: null, time: null };
  let fingerprint: string | undefined;
  let readAt = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<IndexedState> | undefined;
  // Bumped by invalidate(): a reading begun before it may predate the write, so it neither
  // serves later callers nor counts as fresh.
  let epoch = 0;
  let inFlightEpoch = -1;
  let appliedEpoch = 0;

  async function read(): Promise<IndexedState> {
    const started = Date.now();
    const startedEpoch = epoch;
    const [versions, checkpoints] = await Promise.all([
      sql<{ v: string | null }[]>`select string_agg(name || ':' || version, ',' order by name) as v
        from app.read_versions`.catch(() => [{ v: null }]),
      // Checkpoint layout (Ponder): timestamp in chars 1-10, block number in chars 27-42.
      // BSC's only: market reads are BSC's, and the index may also hold Arbitrum (chain 42161).
      sql<{ c: string }[]>`select latest_checkpoint as c
        from ${view(sql, schema, "_ponder_checkpoint")} where chain_id = 56 order by chain_id`.catch(
        (error: unknown) => {
          if (isMissingRelation(error)) return [];
          throw error;
        },
      ),
    ]);
    const print = `${versions[0]?.v ?? ""}|${checkpoints.map((r) => r.c).join(",")}`;
    // A reading begun before an invalidate() that ends after a newer one must not undo it.
    if (startedEpoch < appliedEpoch) return state;
    appliedEpoch = startedEpoch;
    if (print !== fingerprint) {
      fingerprint = print;
      const latest = checkpoints.at(-1)?.c;
      state = {
        gen: state.gen + 1,
        block: latest ? BigInt(latest.slice(26, 42)).toString() : null,
        time: checkpoints.length
          ? Math.max(...checkpoints.map((r) => Number(r.c.slice(0, 10))))
          : null,
      };
    }
    if (startedEpoch === epoch) readAt = started;
    return state;
  }

  return {
    current() {
      if (Date.now() - readAt < maxAgeMs) return Promise.resolve(state);
      if (inFlight && inFlightEpoch === epoch) return inFlight;
      const p = read().finally(() => {
        if (inFlight === p) inFlight = undefined;
      });
      inFlight = p;
      inFlightEpoch = epoch;
      return p;
    },
    invalidate() {
      epoch += 1;
      readAt = Number.NEGATIVE_INFINITY;
    },
  };
}
