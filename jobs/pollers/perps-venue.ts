import { createHash } from "node:crypto";
import type { Sql } from "../../lib/db/client.ts";
import { charge, rateLimited, trySpend, type WeightBudget } from "../../lib/pollers/budget.ts";
import { UpstreamError } from "../../services/http.ts";
import {
  type ClearinghouseState,
  infoItemsWeight,
  infoWeight,
} from "../../services/hyperliquid/protocol.ts";
import { POLLER_LIMITS } from "../limits.ts";

const L = POLLER_LIMITS.perps;

/** Why a poll waits for a later tick: budget spent, a back-off running, or a 429 just now. */
export type DeferReason = "budget" | "backoff" | "rate-limited";

/** A poll that must wait for a later tick; nothing of it is committed and nothing is lost. */
export class PollDeferred extends Error {
  override name = "PollDeferred";
  readonly why: DeferReason;
  constructor(why: DeferReason) {
    super(`poll deferred: ${why}`);
    this.why = why;
  }
}

/** How the perps poller paces itself against the venue (docs/pollers.md "Rate budget"). */
export type VenuePacing = {
  sql: Sql;
  budget: WeightBudget;
  /** A 429 stops every worker's perps polls this long (doubling while they recur, up to max). */
  backoffMs: number;
  maxBackoffMs: number;
};

/**
 * Takes `weight` from the venue's budget for requests about to be sent, or throws
 * `PollDeferred` (budget spent this window, or the poller backing off after a 429). A large
 * spend refused may make its claimant the head of the line (lib/pollers/budget.ts `trySpend`).
 *
 * @example
 * await reserve(pacing, infoWeight("clearinghouseState"));
 */
export async function reserve(
  p: VenuePacing,
  weight: number,
  o: { claimant?: string; claim?: boolean } = {},
): Promise<void> {
  const r = await trySpend(p.sql, p.budget, weight, o);
  if (!r.ok) throw new PollDeferred(r.why);
}

/** Weights of the perps poll's requests (PROTOCOLS.md 1.2). */
export const PERPS_WEIGHT = {
  state: infoWeight("clearinghouseState"),
  fills: infoWeight("userFillsByTime"),
  ledger: infoWeight("userNonFundingLedgerUpdates"),
};

/**
 * Takes this tick's first weight and says whether it sweeps: a due sweep takes its whole first
 * round (2 + 20 + 20) at once, so it never stops half-way for budget. On time, it goes only
 * within `sweepBudgetShare` of the budget, else the tick is a cheap one (2) and the sweep waits;
 * `sweepClaimAfterPeriods` late (or an account's first read), it claims the head of the line.
 * Throws `PollDeferred` when not even the cheap tick fits.
 */
export async function reserveTick(
  p: VenuePacing,
  o: { claimant: string; sinceFullMs: number; sweepEveryMs: number },
): Promise<{ sweep: boolean }> {
  const W = PERPS_WEIGHT;
  const round = W.state + W.fills + W.ledger;
  if (o.sinceFullMs >= o.sweepEveryMs * L.sweepClaimAfterPeriods) {
    await reserve(p, round, { claimant: o.claimant, claim: true });
    return { sweep: true };
  }
  if (o.sinceFullMs >= o.sweepEveryMs) {
    const cap = Math.floor(p.budget.limit * L.sweepBudgetShare);
    const r = await trySpend(p.sql, p.budget, round, { claimant: o.claimant, cap, optional: true });
    if (r.ok) return { sweep: true };
    if (r.why === "backoff") throw new PollDeferred("backoff");
  }
  await reserve(p, W.state, { claimant: o.claimant });
  return { sweep: false };
}

/**
 * Sends one info request whose weight was reserved: the extra weight its answer's length costs
 * is booked after it, and a 429 backs off the whole poller (every worker) and defers this poll.
 *
 * @example
 * const fills = await sendInfo(pacing, "userFillsByTime", () => hl.userFillsByTime(u, t), (f) => f.length);
 */
export async function sendInfo<T>(
  p: VenuePacing,
  type: string,
  run: () => Promise<T>,
  items: (answer: T) => number = () => 0,
): Promise<T> {
  try {
    const answer = await run();
    await charge(p.sql, p.budget, infoItemsWeight(type, items(answer)));
    return answer;
  } catch (error) {
    if (error instanceof UpstreamError && error.status === 429) {
      await rateLimited(p.sql, p.budget, { backoffMs: p.backoffMs, maxMs: p.maxBackoffMs });
      throw new PollDeferred("rate-limited");
    }
    throw error;
  }
}

/**
 * What of a perps account changes only through the account's own activity: each position's
 * size, entry and leverage, the cash (`totalRawUsd`), and, with no position open, the account
 * value and withdrawable. Marks move the rest every second (unrealized PnL, account value and
 * margins of an open position), so comparing those would read fills on every tick of every
 * account holding a position. A fill moves a position (or, opened and closed between two
 * polls, the cash by its fees and PnL); a deposit, withdrawal, transfer or funding the cash; a
 * liquidation the positions. What escapes this (a round trip whose PnL equals its fees, a fill
 * the venue lists after its state shows it) is read by the sweep.
 *
 * @example
 * if (accountSignature(state) !== cursor.sig) readFillsAndLedger();
 */
export function accountSignature(s: ClearinghouseState): string {
  const positions = s.assetPositions
    .map(({ position: p }) => [p.coin, p.szi, p.entryPx, p.leverage.type, p.leverage.value])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  const flat = positions.length === 0;
  const figures = [
    s.marginSummary.totalRawUsd,
    s.crossMarginSummary.totalRawUsd,
    flat ? s.marginSummary.accountValue : null,
    flat ? s.withdrawable : null,
  ];
  const hash = createHash("sha256")
    .update(JSON.stringify([positions, figures]))
    .digest("hex");
  // Not all digits: the cursor's merge keeps the newest string as it is (lib/pollers/state.ts).
  return `sig:${hash.slice(0, 32)}`;
}
