import { type Context, ponder } from "ponder:registry";
import { bnbUsd, bnbUsdLatest } from "ponder:schema";
import { aggregatorV3Abi } from "../abis/AggregatorV3.ts";
import type { Hex } from "./settings.ts";
import { usdRate } from "./usd.ts";

/**
 * decimals() is a constant of the feed: read once per process at the latest block through Ponder's
 * client with `cache: "immutable"`, whose RPC cache answers it on a reindex. Pinned to the event's
 * block it failed on a devnet that no longer keeps that block's state; it waits in Ponder's RPC
 * queue once per process.
 */
const decimalsOf = new Map<Hex, Promise<number>>();
function feedDecimals(context: Context, address: Hex): Promise<number> {
  let known = decimalsOf.get(address);
  if (!known) {
    known = context.client
      .readContract({ address, abi: aggregatorV3Abi, functionName: "decimals", cache: "immutable" })
      .then(Number);
    known.catch(() => decimalsOf.delete(address));
    decimalsOf.set(address, known);
  }
  return known;
}

ponder.on("BnbUsdFeed:AnswerUpdated", async ({ event, context }) => {
  const decimals = await feedDecimals(context, event.log.address);
  await context.db
    .insert(bnbUsd)
    .values({
      round: event.args.roundId,
      answer: event.args.current,
      decimals: Number(decimals),
      updatedAt: event.args.updatedAt,
      blockNumber: event.block.number,
    })
    .onConflictDoNothing();
  // A non-positive answer is a broken feed, not a price: trades keep the last good one.
  if (event.args.current <= 0n) return;
  const latest = {
    round: event.args.roundId,
    rate: usdRate(event.args.current, Number(decimals)),
    blockNumber: event.block.number,
  };
  await context.db
    .insert(bnbUsdLatest)
    .values({ id: "latest", ...latest })
    .onConflictDoUpdate(latest);
});
