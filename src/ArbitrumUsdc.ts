// USDC on Arbitrum, the indexer's second chain (registered only when ARBITRUM_RPC_URL is set:
// Ponder refuses a handler for a contract its config does not have).
import { ponder } from "ponder:registry";
import { usdcTransfer } from "ponder:schema";
import { ARBITRUM_CHAIN_ID, resolveArbitrum } from "../lib/arbitrum.ts";
import { loadConfig } from "../lib/config.ts";
import { lower } from "./settings.ts";

if (resolveArbitrum(loadConfig())) {
  // Every Transfer of the token is kept: which addresses are perps deposit addresses is the
  // service's own (off-chain) registration, which the projector joins (docs/events.md).
  ponder.on("ArbitrumUsdc:Transfer" as never, async ({ event, context }: ArbitrumTransfer) => {
    await context.db.insert(usdcTransfer).values({
      id: `${ARBITRUM_CHAIN_ID}:${event.transaction.hash}:${event.log.logIndex}`,
      chainId: ARBITRUM_CHAIN_ID,
      from: lower(event.args.from),
      to: lower(event.args.to),
      amount: event.args.value,
      blockNumber: event.block.number,
      timestamp: event.block.timestamp,
      txHash: event.transaction.hash,
    });
  });
}

type ArbitrumTransfer = {
  event: {
    args: { from: `0x${string}`; to: `0x${string}`; value: bigint };
    log: { logIndex: number };
    block: { number: bigint; timestamp: bigint };
    transaction: { hash: `0x${string}` };
  };
  context: { db: import("ponder:registry").Context["db"] };
};
