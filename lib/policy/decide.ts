import { randomUUID } from "node:crypto";
import type { Address } from "viem";
import { evaluate, type Verdict } from "./evaluators.ts";
import type { Intent, PolicyState } from "./intent.ts";
import { type PolicyVersion, unitsToUsd } from "./model.ts";
import {
  type PerpsVenue,
  type SnapshotParameters,
  type SpotChain,
  takeSnapshot,
} from "./snapshot.ts";
import type { LedgerEntry } from "./store.ts";

/** Intents whose verdict depends on positions, budgets or PnL: they need a snapshot. */
const needsState = (i: Intent) => i.kind === "trade" && i.action === "open";

export type DecideParameters = {
  /** The version current when the call started: a save during the call does not change it. */
  policy: PolicyVersion;
  intent: Intent;
  now: Date;
  wallet: Address;
  ledger: readonly LedgerEntry[];
  spot?: SpotChain;
  perps?: PerpsVenue;
  preread?: Pick<SnapshotParameters, "bnbPrice" | "venue">;
};

export type Decision = {
  callId: string;
  verdict: Verdict;
  policy: PolicyVersion;
  intent: Intent;
  /** The `data` of the policy.applied / policy.denied / policy.needs_manual event. */
  data: Record<string, unknown>;
  eventType: "policy.applied" | "policy.denied" | "policy.needs_manual";
};

/**
 * Decides one order (or one of its steps): a state snapshot when the intent needs one (a source that cannot
 * be read denies the call: `stateSnapshot` / `state_unavailable`), then the evaluator chain
 * against the version the call started with.
 *
 * @example
 * const d = await decide({ policy, intent, now, wallet, ledger, spot, perps });
 * if (!d.verdict.ok) throw policyError(d);
 */
export async function decide(p: DecideParameters): Promise<Decision> {
  let verdict: Verdict;
  const empty: PolicyState = { now: p.now, positions: [], openedTodayUsd: 0n, realized: [] };
  try {
    const state = needsState(p.intent)
      ? await takeSnapshot({
          now: p.now,
          wallet: p.wallet,
          ledger: p.ledger,
          lossWindowSec: p.policy.rules.lossCooldownWindowSec,
          spot: p.spot,
          perps: p.perps,
          ...p.preread,
        })
      : empty;
    verdict = evaluate(p.intent, p.policy.rules, state);
  } catch (error) {
    verdict = {
      ok: false,
      evaluator: "stateSnapshot",
      code: "state_unavailable",
      reason: `positions or prices could not be read: ${(error as Error).message.split("\n")[0]}`,
      manual: false,
    };
  }
  return describe(p, verdict);
}

function describe(p: DecideParameters, verdict: Verdict): Decision {
  const i = p.intent;
  const callId = randomUUID();
  const trade =
    i.kind === "trade"
      ? {
          venue: i.venue,
          asset: i.asset,
          side: i.side,
          action: i.action,
          notionalUsd: unitsToUsd(i.notionalUsd),
          leverage: i.leverage,
        }
      : i.kind === "leverage"
        ? { venue: i.venue, asset: i.asset, leverage: i.leverage }
        : {};
  const data: Record<string, unknown> = {
    callId,
    policyId: p.policy.policyId,
    version: p.policy.version,
    kind: i.kind,
    at: p.now.toISOString(),
    ...trade,
    summary: i.summary,
    ...(verdict.ok
      ? {}
      : { evaluator: verdict.evaluator, code: verdict.code, reason: verdict.reason }),
  };
  const manual = !verdict.ok && verdict.manual;
  const eventType = verdict.ok
    ? "policy.applied"
    : manual
      ? "policy.needs_manual"
      : "policy.denied";
  return {
    callId,
    verdict,
    policy: p.policy,
    intent: i,
    data,
    eventType,
  };
}

/** The ledger entry an applied trade leaves (the budget and spot positions count from it). */
export function ledgerEntry(d: Decision, ref: string): LedgerEntry | undefined {
  const i = d.intent;
  if (!d.verdict.ok || i.kind !== "trade") return undefined;
  return {
    at: String(d.data.at),
    venue: i.venue,
    asset: i.asset,
    side: i.side,
    action: i.action,
    notionalUsd: unitsToUsd(i.notionalUsd),
    policyId: d.policy.policyId,
    version: d.policy.version,
    ref,
  };
}
