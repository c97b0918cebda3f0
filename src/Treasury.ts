// Safe executions of treasuries (factory sources on ServiceTokenRegistered.treasury and
// LaunchCreated.treasury) for the agent activity feed.
import { type Context, ponder } from "ponder:registry";
import { walletActivity, watchedWallet } from "ponder:schema";
import { type Hex, logId, lower, SOURCE } from "./settings.ts";

type SafeEvent = {
  args: { txHash: Hex; payment: bigint };
  log: { address: Hex; logIndex: number };
  block: { number: bigint; timestamp: bigint };
  transaction: { hash: Hex };
};

const onExecution =
  (kind: "safe_execution_success" | "safe_execution_failure") =>
  async ({ event, context }: { event: SafeEvent; context: Context }) => {
    const wallet = lower(event.log.address);
    const w = await context.db.find(watchedWallet, { address: wallet });
    await context.db.insert(walletActivity).values({
      id: logId(event.transaction.hash, event.log.logIndex),
      source: SOURCE,
      wallet,
      role: w?.role ?? "treasury",
      agentId: w?.agentId ?? null,
      kind,
      amount: event.args.payment,
      safeTxHash: event.args.txHash,
      blockNumber: event.block.number,
      logIndex: event.log.logIndex,
      txHash: event.transaction.hash,
      timestamp: event.block.timestamp,
    });
  };

ponder.on("ServiceTreasury:ExecutionSuccess", onExecution("safe_execution_success"));
ponder.on("ServiceTreasury:ExecutionFailure", onExecution("safe_execution_failure"));
ponder.on("LaunchTreasury:ExecutionSuccess", onExecution("safe_execution_success"));
ponder.on("LaunchTreasury:ExecutionFailure", onExecution("safe_execution_failure"));
