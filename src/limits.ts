/** Every limit of the indexer's handlers (src/), in one place. */

/** Receipts read for the trade extraction (src/receipts.ts). */
export const RECEIPT_LIMITS = {
  /** Blocks whose receipts are kept: indexing walks blocks in order, a few suffice. */
  memoBlocks: 32,
  /** Reads of one block's receipts before the handler gives up (a node behind or on a fork). */
  attempts: 5,
  /** First wait between reads; doubles each time (100, 200, 400, 800 ms). */
  backoffMs: 100,
} as const;
