// Transaction receipts for the trade extraction in trades.ts. Registers no handler.
//
// Ponder 0.17.7's `event.transactionReceipt` carries no logs, so receipts are read from the
// RPC: one `eth_getBlockReceipts` per block (by hash), memoised for the blocks being indexed.
// Per-transaction `eth_getTransactionReceipt` through Ponder's cache cost ~35 ms each (one
// select and one insert in ponder_sync per call) and dominated backfill time. Keyed by block
// hash, a memoised result can never describe a block that was reorged away.
import type { Context } from "ponder:registry";
import {
  formatTransactionReceipt,
  type Hex,
  type RpcTransactionReceipt,
  type TransactionReceipt,
} from "viem";

/** Blocks whose receipts are kept: indexing walks blocks in order, a few suffice. */
const MEMO_BLOCKS = 32;
const memo = new Map<Hex, Promise<TransactionReceipt[]>>();

/** The RPC answered for another block than asked: Ponder retries the handler. */
export class ReceiptMismatchError extends Error {
  override name = "ReceiptMismatchError";
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
  const receipts = await blockReceipts(context, block.hash);
  const receipt = receipts.find((r) => r.transactionHash === txHash);
  if (!receipt || receipt.blockHash !== block.hash) {
    throw new ReceiptMismatchError(`no receipt of ${txHash} in block ${block.hash}`);
  }
  return receipt;
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
  if (memo.size > MEMO_BLOCKS) memo.delete(memo.keys().next().value as Hex);
  return pending;
}
