// The curve's state of a service token right after its creation (`_tokenInfos` at the creation
// block), for the mint (ServiceToken.ts). Registers no handler.
//
// One multicall per block for every service token created in it, through Ponder's client: its RPC
// cache serves a reindex on a devnet that no longer keeps the block's state. One read per token
// waited in Ponder's RPC queue, which starts at 20 requests a second and is shared with its
// historical sync: on the 100,000-trade bench the first indexing batch, with the 200 mints of one
// block, took 28.7 s waiting there while the sync ran.
import type { Context } from "ponder:registry";
import { token } from "ponder:schema";
import type { ContractFunctionReturnType } from "viem";
import { tokenManager2Abi } from "../abis/TokenManager2.ts";
import { MULTICALL3_ADDRESS } from "../lib/chain.ts";
import { RECEIPT_LIMITS } from "./limits.ts";
import type { BlockReceipts } from "./receipts.ts";
import { type Hex, settings } from "./settings.ts";

type TokenInfo = ContractFunctionReturnType<typeof tokenManager2Abi, "view", "_tokenInfos">;

/** A token's curve (`_tokenInfos`) and AntiSniperFeeMode (`_tokenInfoEx1s(token)[2]`, feeSetting). */
export type CurveAtCreation = { info: TokenInfo; feeSetting: bigint };

/** Per block hash: each token's read (a block reorged away is never asked for again). */
const memo = new Map<Hex, Map<Hex, Promise<CurveAtCreation>>>();

/**
 * `_tokenInfos(address)` and `_tokenInfoEx1s(address)` at the block: read together with every
 * other service token created later in the same block and still waiting for its mint, in log
 * order (the same request, so the same cache entry, on a reindex).
 *
 * @example
 * const { info, feeSetting } = await curveAtCreation(context, tok.address, block, receipts);
 * const [maxRaising, offers, lastPrice] = [info[5], info[7], info[9]];
 */
export async function curveAtCreation(
  context: Context,
  address: Hex,
  block: { hash: Hex; number: bigint },
  receipts: BlockReceipts,
): Promise<CurveAtCreation> {
  let known = memo.get(block.hash);
  if (!known) {
    known = new Map();
    memo.set(block.hash, known);
    if (memo.size > RECEIPT_LIMITS.memoBlocks) memo.delete(memo.keys().next().value as Hex);
  }
  const found = known.get(address);
  if (found) return found;
  const batch: Hex[] = [];
  for (const created of receipts.created()) {
    if (known.has(created) || batch.includes(created)) continue;
    if (created !== address) {
      const row = await context.db.find(token, { address: created });
      if (row?.origin !== "registry" || row.createdBlock !== null) continue;
    }
    batch.push(created);
  }
  if (!batch.includes(address)) batch.push(address);
  const read = context.client.multicall({
    // Named: a mint replayed at a later registration (src/before-registration.ts) reads its own
    // block, not the event's.
    blockNumber: block.number,
    // Named, not taken from viem's `bsc` chain: that dates Multicall3 to mainnet block 15,921,452
    // and refuses it at a devnet's low block numbers.
    multicallAddress: MULTICALL3_ADDRESS,
    allowFailure: false,
    contracts: batch.flatMap((t) => [
      {
        address: settings.tokenManager2,
        abi: tokenManager2Abi,
        functionName: "_tokenInfos" as const,
        args: [t] as const,
      },
      {
        address: settings.tokenManager2,
        abi: tokenManager2Abi,
        functionName: "_tokenInfoEx1s" as const,
        args: [t] as const,
      },
    ]),
  });
  // A failed read is not kept: Ponder runs the batch again and this reads again.
  read.catch(() => memo.delete(block.hash));
  for (const [i, t] of batch.entries()) {
    const one = read.then((r) => ({
      info: r[2 * i] as TokenInfo,
      feeSetting: (r[2 * i + 1] as readonly bigint[])[2] as bigint,
    }));
    // A token whose mint never asks (a reorg) must not leave an unhandled rejection.
    one.catch(() => undefined);
    known.set(t, one);
  }
  return known.get(address) as Promise<CurveAtCreation>;
}
