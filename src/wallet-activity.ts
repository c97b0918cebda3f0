import type { Context } from "ponder:registry";
import { walletActivity } from "ponder:schema";
import { type Hex, logId, SOURCE } from "./settings.ts";

/** What dates and keys a wallet's activity row: the log that made it. */
export type ActivityEvent = {
  log: { logIndex: number };
  block: { number: bigint; timestamp: bigint };
  transaction: { hash: Hex };
};

/** Whose wallet it is, from `watched_wallet`. */
export type ActivityOwner = { role: string; agentId: bigint | null };

/** The owner of a wallet `watched_wallet` does not hold yet: a Safe that is not registered. */
export const TREASURY: ActivityOwner = { role: "treasury", agentId: null };

/** The row's own fields. `suffix` tells apart two rows one log makes (a transfer's in and out). */
export type ActivityRow = {
  wallet: Hex;
  kind: string;
  amount: bigint;
  token?: Hex;
  counterparty?: Hex;
  safeTxHash?: Hex;
  suffix?: string;
};

/**
 * Records one movement of a watched wallet (token in/out, tax income, BNB in/out, a Safe
 * execution), keyed by its log so a replayed block writes the same row.
 *
 * @example
 * await recordWalletActivity(context, event, owner, { wallet, kind: "bnb_in", amount, counterparty });
 */
export async function recordWalletActivity(
  context: Context,
  event: ActivityEvent,
  owner: ActivityOwner,
  row: ActivityRow,
): Promise<void> {
  const { suffix, ...fields } = row;
  const id = logId(event.transaction.hash, event.log.logIndex);
  await context.db.insert(walletActivity).values({
    ...fields,
    id: suffix ? `${id}:${suffix}` : id,
    source: SOURCE,
    role: owner.role,
    agentId: owner.agentId,
    blockNumber: event.block.number,
    logIndex: event.log.logIndex,
    txHash: event.transaction.hash,
    timestamp: event.block.timestamp,
  });
}
