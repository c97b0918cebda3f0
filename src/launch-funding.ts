// The launch report's chain facts (lib/launch-report.ts): a registered token's early buyers and
// the BNB that reached them just before their first buy. Registers no handler; trades.ts calls
// it for each curve buy it indexes.
//
// A bundle funds fresh wallets with plain BNB transfers, which emit no log: the blocks before a
// buy are read whole (their transactions) by block hash, walking back by parent hash from the
// buy's block, so every read names the fork Ponder is indexing and a reorg that drops the buy
// drops what was found with it (Ponder reverts the handler's writes). Ponder's RPC cache keeps
// blocks by hash, so a reindex reads none of them from the node again.
import type { Context } from "ponder:registry";
import { launchBuyer, launchFunding, type token } from "ponder:schema";
import { LAUNCH_REPORT } from "../lib/limits.ts";
import { RECEIPT_LIMITS } from "./limits.ts";
import { type Hex, lower } from "./settings.ts";

type TokenRow = typeof token.$inferSelect;
type BlockRef = { number: bigint; hash: Hex; parentHash: Hex };
type FullBlock = BlockRef & {
  transactions: { hash: Hex; from: Hex; to: Hex | null; value: bigint; transactionIndex: number }[];
};

/** Blocks with their transactions, by hash: the buyers of one launch share the same few blocks. */
const blocks = new Map<Hex, Promise<FullBlock>>();

function fullBlock(context: Context, blockHash: Hex): Promise<FullBlock> {
  let known = blocks.get(blockHash);
  if (!known) {
    known = context.client.getBlock({ blockHash, includeTransactions: true }) as Promise<FullBlock>;
    known.catch(() => blocks.delete(blockHash));
    blocks.set(blockHash, known);
    const limit = RECEIPT_LIMITS.memoBlocks + LAUNCH_REPORT.fundingLookbackBlocks;
    if (blocks.size > limit) blocks.delete(blocks.keys().next().value as Hex);
  }
  return known;
}

export type RecordEarlyBuyParameters = {
  tok: TokenRow;
  /** The buyer (TokenPurchase's `account`). */
  account: Hex;
  txHash: Hex;
  block: BlockRef;
};

/**
 * Records a curve buy of a registered token in its launch window: the buyer's first such buy
 * (`launch_buyer`) and, for that first one, every plain BNB transfer to the buyer in the
 * LAUNCH_REPORT.fundingLookbackBlocks before it and earlier in its own block (`launch_funding`).
 * The creator's own buys are the report's apart and are not recorded; buys after the window,
 * and deposit launches' tokens, neither.
 *
 * @example
 * await recordEarlyBuy(context, { tok, account, txHash, block: event.block });
 */
export async function recordEarlyBuy(context: Context, p: RecordEarlyBuyParameters): Promise<void> {
  const { tok, account } = p;
  if (tok.origin !== "registry" || tok.createdBlock === null) return;
  if (p.block.number > tok.createdBlock + BigInt(LAUNCH_REPORT.windowBlocks)) return;
  if (account === tok.creator) return;
  if (await context.db.find(launchBuyer, { token: tok.address, account })) return;
  await context.db.insert(launchBuyer).values({
    token: tok.address,
    account,
    firstBuyBlock: p.block.number,
    firstBuyTx: p.txHash,
  });
  let block = await fullBlock(context, p.block.hash);
  const buyIndex =
    block.transactions.find((t) => t.hash === p.txHash)?.transactionIndex ??
    block.transactions.length;
  for (let depth = 0; depth <= LAUNCH_REPORT.fundingLookbackBlocks; depth++) {
    for (const t of block.transactions) {
      if (depth === 0 && t.transactionIndex >= buyIndex) continue;
      if (!t.to || lower(t.to) !== account || t.value === 0n || lower(t.from) === account) continue;
      await context.db
        .insert(launchFunding)
        .values({
          id: `${tok.address}:${t.hash}`,
          token: tok.address,
          wallet: account,
          funder: lower(t.from),
          amount: t.value,
          blockNumber: block.number,
          txHash: t.hash,
        })
        .onConflictDoNothing();
    }
    if (block.number === 0n) break;
    block = await fullBlock(context, block.parentHash);
  }
}
