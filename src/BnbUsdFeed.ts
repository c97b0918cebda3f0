import { ponder } from "ponder:registry";
import { bnbUsd, bnbUsdLatest } from "ponder:schema";
import { aggregatorV3Abi } from "../abis/AggregatorV3.ts";
import { usdRate } from "./usd.ts";

ponder.on("BnbUsdFeed:AnswerUpdated", async ({ event, context }) => {
  // decimals() is constant; Ponder caches the read.
  const decimals = await context.client.readContract({
    address: event.log.address,
    abi: aggregatorV3Abi,
    functionName: "decimals",
  });
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
