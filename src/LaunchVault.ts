// Deposit-launch vaults (a factory source on LaunchCreated.vault). Status transitions, from
// the vault's own events only:
//   LaunchCreated -> open; Closed -> closed; LaunchExecuted -> launched; RefundEnabled -> refund
// (enableRefund on an expired open vault emits Closed first, so refund always follows closed).
import { type Context, ponder } from "ponder:registry";
import { depositor, launch, launchEvent, token } from "ponder:schema";
import { type Hex, logId, lower, WAD } from "./settings.ts";

type Base = {
  log: { address: Hex; logIndex: number };
  block: { number: bigint; timestamp: bigint };
  transaction: { hash: Hex };
};

async function record(
  context: Context,
  event: Base,
  kind: string,
  account: Hex | null,
  amount: bigint | null,
  totalDeposited: bigint | null,
) {
  await context.db.insert(launchEvent).values({
    id: logId(event.transaction.hash, event.log.logIndex),
    vault: lower(event.log.address),
    kind,
    account,
    amount,
    totalDeposited,
    blockNumber: event.block.number,
    logIndex: event.log.logIndex,
    txHash: event.transaction.hash,
    timestamp: event.block.timestamp,
  });
}

async function moveDeposit(
  context: Context,
  vault: Hex,
  account: Hex,
  d: { principal?: bigint; claimed?: bigint; refunded?: bigint },
) {
  const key = { vault, account };
  const row = await context.db.find(depositor, key);
  if (!row) {
    await context.db.insert(depositor).values({
      ...key,
      principal: d.principal ?? 0n,
      claimed: d.claimed ?? 0n,
      refunded: d.refunded ?? 0n,
    });
    // The vault lists an account once, at its first deposit.
    await context.db
      .update(launch, { vault })
      .set((l) => ({ depositorCount: l.depositorCount + 1 }));
    return;
  }
  await context.db.update(depositor, key).set({
    principal: row.principal + (d.principal ?? 0n),
    claimed: row.claimed + (d.claimed ?? 0n),
    refunded: row.refunded + (d.refunded ?? 0n),
  });
}

/** A deposit or a withdrawal: the depositor's principal, the vault's total, the event. */
async function principalMoved(
  context: Context,
  event: Base & { args: { depositor: Hex; amount: bigint; totalDeposited: bigint } },
  kind: "deposited" | "withdrew",
) {
  const vault = lower(event.log.address);
  const account = lower(event.args.depositor);
  const { amount, totalDeposited } = event.args;
  await moveDeposit(context, vault, account, {
    principal: kind === "deposited" ? amount : -amount,
  });
  await context.db.update(launch, { vault }).set({ totalDeposited });
  await record(context, event, kind, account, amount, totalDeposited);
}

/** A claim (tokens) or a refund (BNB): the depositor's running sum, the vault's, the event. */
async function paidOut(
  context: Context,
  event: Base & { args: { depositor: Hex; amount: bigint } },
  kind: "claimed" | "refunded",
) {
  const vault = lower(event.log.address);
  const account = lower(event.args.depositor);
  const { amount } = event.args;
  const claim = kind === "claimed";
  await moveDeposit(context, vault, account, claim ? { claimed: amount } : { refunded: amount });
  await context.db
    .update(launch, { vault })
    .set((l) =>
      claim
        ? { totalClaimed: l.totalClaimed + amount }
        : { totalRefunded: l.totalRefunded + amount },
    );
  await record(context, event, kind, account, amount, null);
}

ponder.on("LaunchVault:Deposited", ({ event, context }) =>
  principalMoved(context, event, "deposited"),
);

ponder.on("LaunchVault:Withdrew", ({ event, context }) =>
  principalMoved(context, event, "withdrew"),
);

ponder.on("LaunchVault:Closed", async ({ event, context }) => {
  const vault = lower(event.log.address);
  await context.db.update(launch, { vault }).set({ status: "closed" });
  await record(context, event, "closed", null, null, event.args.totalDeposited);
});

ponder.on("LaunchVault:LaunchExecuted", async ({ event, context }) => {
  const vault = lower(event.log.address);
  const a = event.args;
  const address = lower(a.token);
  await context.db.update(launch, { vault }).set({
    status: "launched",
    token: address,
    pair: lower(a.pair),
    liquidityBnb: a.liquidityBnb,
    liquidityTokens: a.liquidityTokens,
    tokensForDepositors: a.tokensForDepositors,
  });
  // A launch token starts on the DEX: its price is the seeded pool's.
  const spot = a.liquidityTokens === 0n ? 0n : (a.liquidityBnb * WAD) / a.liquidityTokens;
  await context.db.update(token, { address }).set((t) => ({
    status: "graduated",
    pair: lower(a.pair),
    lastPrice: t.tradeCount === 0 ? spot : t.lastPrice,
    marketCapBnb: ((t.tradeCount === 0 ? spot : t.lastPrice) * t.totalSupply) / WAD,
    graduatedBlock: event.block.number,
    graduatedAt: event.block.timestamp,
  }));
  await record(context, event, "launch_executed", null, a.liquidityBnb, null);
});

ponder.on("LaunchVault:Claimed", ({ event, context }) => paidOut(context, event, "claimed"));

ponder.on("LaunchVault:Distributed", async ({ event, context }) => {
  await record(context, event, "distributed", null, event.args.amount, null);
});

ponder.on("LaunchVault:RefundEnabled", async ({ event, context }) => {
  const vault = lower(event.log.address);
  await context.db
    .update(launch, { vault })
    .set({ status: "refund", refundReason: Number(event.args.reason) });
  await record(context, event, "refund_enabled", null, null, event.args.totalDeposited);
});

ponder.on("LaunchVault:Refunded", ({ event, context }) => paidOut(context, event, "refunded"));
