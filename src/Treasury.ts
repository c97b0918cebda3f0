// Safe executions of treasuries (factory sources on ServiceTokenRegistered.treasury and
// LaunchCreated.treasury) for the agent activity feed, and BNB moving in and out of them.
import { type Context, ponder } from "ponder:registry";
import { watchedWallet } from "ponder:schema";
import { decodeEventLog, getAbiItem, toEventSelector } from "viem";
import { safeL2Abi } from "../abis/SafeL2.ts";
import { readBlockReceipts } from "./receipts.ts";
import { type Hex, lower } from "./settings.ts";
import { recordWalletActivity, TREASURY } from "./wallet-activity.ts";

type SafeEvent = {
  args: { txHash: Hex; payment: bigint };
  log: { address: Hex; logIndex: number };
  block: { number: bigint; timestamp: bigint; hash: Hex };
  transaction: { hash: Hex };
};

const MULTISIG_TOPIC = toEventSelector(
  getAbiItem({ abi: safeL2Abi, name: "SafeMultiSigTransaction" }),
);

const onExecution =
  (kind: "safe_execution_success" | "safe_execution_failure") =>
  async ({ event, context }: { event: SafeEvent; context: Context }) => {
    const wallet = lower(event.log.address);
    const owner = (await context.db.find(watchedWallet, { address: wallet })) ?? TREASURY;
    await recordWalletActivity(context, event, owner, {
      wallet,
      kind,
      amount: event.args.payment,
      safeTxHash: event.args.txHash,
    });
    if (kind === "safe_execution_failure") return;
    // BNB out: the executed Safe transaction's value (SafeL2 logs it in SafeMultiSigTransaction
    // right before running it; only a success moved it).
    const sent = await executedValue(event);
    if (!sent || sent.value === 0n) return;
    await recordWalletActivity(context, event, owner, {
      wallet,
      suffix: "bnb",
      kind: "bnb_out",
      counterparty: sent.to,
      amount: sent.value,
      safeTxHash: event.args.txHash,
    });
  };

/** `to` and `value` of the last SafeMultiSigTransaction of this Safe before `event` in its tx. */
async function executedValue(event: SafeEvent) {
  const receipts = await readBlockReceipts(event.transaction.hash, event.block);
  const log = (receipts.logs(event.transaction.hash) ?? [])
    .filter(
      (l) =>
        lower(l.address) === lower(event.log.address) &&
        l.topics[0] === MULTISIG_TOPIC &&
        Number(l.logIndex) < event.log.logIndex,
    )
    .at(-1);
  if (!log) return undefined;
  const ev = decodeEventLog({
    abi: safeL2Abi,
    data: log.data,
    topics: log.topics as [Hex, ...Hex[]],
  });
  if (ev.eventName !== "SafeMultiSigTransaction") return undefined;
  return { to: lower(ev.args.to), value: ev.args.value };
}

type ReceivedEvent = {
  args: { sender: Hex; value: bigint };
  log: { address: Hex; logIndex: number };
  block: { number: bigint; timestamp: bigint };
  transaction: { hash: Hex };
};

/** BNB in: a Safe emits SafeReceived from its receive() for every plain BNB payment. */
async function onReceived({ event, context }: { event: ReceivedEvent; context: Context }) {
  const wallet = lower(event.log.address);
  const owner = (await context.db.find(watchedWallet, { address: wallet })) ?? TREASURY;
  await recordWalletActivity(context, event, owner, {
    wallet,
    kind: "bnb_in",
    counterparty: lower(event.args.sender),
    amount: event.args.value,
  });
}

ponder.on("ServiceTreasury:ExecutionSuccess", onExecution("safe_execution_success"));
ponder.on("ServiceTreasury:ExecutionFailure", onExecution("safe_execution_failure"));
ponder.on("LaunchTreasury:ExecutionSuccess", onExecution("safe_execution_success"));
ponder.on("LaunchTreasury:ExecutionFailure", onExecution("safe_execution_failure"));
ponder.on("ServiceTreasury:SafeReceived", onReceived);
ponder.on("LaunchTreasury:SafeReceived", onReceived);
