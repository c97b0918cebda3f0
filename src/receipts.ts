// Transaction receipts for the trade extraction in trades.ts. Registers no handler.
//
// A node that is behind, or on another fork, can answer for another block or with nothing.
// Ponder 0.17.7 does not retry a handler that throws: it rewraps any error that is not its
// own as a non-retryable IndexingFunctionError and the process exits (see
// test/indexer/receipts.test.ts). So the read is retried here, a few times with backoff;
// if the node still disagrees, the error ends the Ponder process, the indexer role exits and
// the supervisor restarts it, and Ponder resumes from its last checkpoint: nothing is
// written from a wrong receipt and nothing is lost.
//
// Ponder 0.17.7's `event.transactionReceipt` carries no logs, so receipts are read from the
// RPC: one `eth_getBlockReceipts` per block (by hash), memoised for the blocks being indexed.
// Per-transaction `eth_getTransactionReceipt` through Ponder's cache cost ~35 ms each (one
// select and one insert in ponder_sync per call) and dominated backfill time. Keyed by block
// hash, a memoised result can never describe a block that was reorged away.
import { setTimeout as sleep } from "node:timers/promises";
import type { Context } from "ponder:registry";
import {
  formatTransactionReceipt,
  type Hex,
  type RpcTransactionReceipt,
  type TransactionReceipt,
} from "viem";
import { LaunchpadError } from "../lib/errors.ts";
import { RECEIPT_LIMITS } from "./limits.ts";

const memo = new Map<Hex, Promise<TransactionReceipt[]>>();

/** The RPC still answered for another block than asked after every retry (fatal to Ponder). */
export class ReceiptMismatchError extends LaunchpadError<"RECEIPT_MISMATCH"> {
  override name = "ReceiptMismatchError";
  constructor(message: string) {
    super("RECEIPT_MISMATCH", { message, retryable: true });
  }
}

/**
 * The receipt of `txHash` in the block `block` (by hash).
 *
 * @example
 * const receipt = await readReceipt(context, event.transaction.hash, event.block);
 */
export async function readReceipt(
  context: Context,
  txHash: Hex,
  block: { hash: Hex },
): Promise<TransactionReceipt> {
  let last: unknown;
  for (let attempt = 0; attempt < RECEIPT_LIMITS.attempts; attempt++) {
    if (attempt > 0) await sleep(RECEIPT_LIMITS.backoffMs * 2 ** (attempt - 1));
    try {
      const receipts = await blockReceipts(context, block.hash);
      const receipt = receipts.find((r) => r.transactionHash === txHash);
      if (receipt && receipt.blockHash === block.hash) return receipt;
      memo.delete(block.hash);
      last = new ReceiptMismatchError(`no receipt of ${txHash} in block ${block.hash}`);
    } catch (error) {
      if (!(error instanceof ReceiptMismatchError)) throw error;
      last = error;
    }
  }
  throw last;
}

function blockReceipts(context: Context, blockHash: Hex): Promise<TransactionReceipt[]> {
  const known = memo.get(blockHash);
  if (known) return known;
  const request = context.client.request as unknown as (args: {
    method: "eth_getBlockReceipts";
    params: [Hex];
  }) => Promise<RpcTransactionReceipt[] | null>;
  const pending = request({ method: "eth_getBlockReceipts", params: [blockHash] }).then((raw) => {
    if (!raw) throw new ReceiptMismatchError(`no receipts for block ${blockHash}`);
    return raw.map((r) => formatTransactionReceipt(r));
  });
  pending.catch(() => memo.delete(blockHash));
  memo.set(blockHash, pending);
  if (memo.size > RECEIPT_LIMITS.memoBlocks) memo.delete(memo.keys().next().value as Hex);
  return pending;
}
