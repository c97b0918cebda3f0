import { ponder } from "ponder:registry";
import { bnbUsd } from "ponder:schema";
import { aggregatorV3Abi } from "../abis/AggregatorV3.ts";

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
});
