import { ponder } from "ponder:registry";
import { token } from "ponder:schema";

// TokenManager2's events carry no indexed topics: every field is in the data blob.
ponder.on("TokenManager2:TokenCreate", async ({ event, context }) => {
  const a = event.args;
  await context.db
    .insert(token)
    .values({
      address: a.token.toLowerCase() as `0x${string}`,
      creator: a.creator.toLowerCase() as `0x${string}`,
      requestId: a.requestId,
      name: a.name,
      symbol: a.symbol,
      totalSupply: a.totalSupply,
      launchTime: a.launchTime,
      launchFee: a.launchFee,
      createdBlock: event.block.number,
      createdTx: event.transaction.hash,
      createdAt: event.block.timestamp,
    })
    .onConflictDoNothing();
});
