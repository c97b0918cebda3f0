/** Every limit of the indexer's handlers (src/), in one place. */

/** Receipts read for the trade extraction (src/receipts.ts). */
export const RECEIPT_LIMITS = {
  /** Blocks whose receipts are kept: indexing walks blocks in order, a few suffice. */
  memoBlocks: 32,
  /** Reads of one block's receipts before the handler gives up (a node behind or on a fork). */
  attempts: 5,
  /** First wait between reads; doubles each time (100, 200, 400, 800 ms). */
  backoffMs: 100,
  /** Blocks read ahead by number while blocks with trades come one after another. */
  readAhead: 2,
} as const;

/** The handlers' own requests to the node (src/rpc.ts), outside Ponder's RPC queue. */
export const RPC_LIMITS = {
  /** One request (a block's receipts can be megabytes on mainnet). */
  timeoutMs: 15_000,
  /** Transport retries of one request (timeouts, 5xx) before the caller sees the error. */
  transportRetries: 2,
} as const;
