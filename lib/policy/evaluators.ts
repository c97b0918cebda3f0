import type { Intent, PolicyState, RealizedPnl, TradeIntent } from "./intent.ts";
import { type PolicyRules, unitsToUsd, usdToUnits, VENUES } from "./model.ts";

/** Why an evaluator refuses: a stable code (what programs branch on) and a sentence. */
export type Refusal = { code: DenyCode; reason: string; manual?: boolean };

/** Every code a denial can carry (docs/policies.md lists when each applies). */
export const DENY_CODES = [
  "call_unknown",
  "outside_allowed_hours",
  "venue_unknown",
  "venue_not_allowed",
  "asset_denied",
  "asset_not_allowed",
  "side_not_allowed",
  "leverage_above_max",
  "position_above_max",
  "open_positions_at_max",
  "daily_budget_exceeded",
  "loss_cooldown",
  "approve_not_allowed",
  "transfer_not_allowed",
  /** Not an evaluator's verdict: the snapshot (positions, prices, PnL) could not be read. */
  "state_unavailable",
] as const;
export type DenyCode = (typeof DENY_CODES)[number];

/** A pure check: the same intent, rules and state always give the same answer. */
export type Evaluator = {
  name: string;
  evaluate: (i: Intent, rules: PolicyRules, s: PolicyState) => Refusal | undefined;
};

const opening = (i: Intent): i is TradeIntent => i.kind === "trade" && i.action === "open";
const usd = (v: bigint) => unitsToUsd(v);

const DAY_MS = 86_400_000;
const utcMidnight = (d: Date) => new Date(Math.floor(d.getTime() / DAY_MS) * DAY_MS);

/**
 * True when the realized PnL over the loss window fell to or below `-floor` at some close
 * since the last UTC midnight: opens stay blocked until the next one. The windowed sum only
 * drops at a close, so checking at each of today's closes is enough.
 */
export function lossFloorBreached(
  realized: readonly RealizedPnl[],
  floor: bigint,
  windowSec: number,
  now: Date,
): RealizedPnl | undefined {
  const since = utcMidnight(now).getTime();
  const end = now.getTime();
  const xs = realized
    .filter((r) => r.at.getTime() <= end)
    .sort((a, b) => a.at.getTime() - b.at.getTime());
  // Prefix sums and a sliding window start: O(n log n) for the sort, then one pass.
  const prefix: bigint[] = [0n];
  for (const x of xs) prefix.push((prefix.at(-1) as bigint) + x.usd);
  const windowMs = windowSec * 1000;
  let lo = 0;
  for (let hi = 0; hi < xs.length; hi++) {
    const t = (xs[hi] as RealizedPnl).at.getTime();
    if (hi + 1 < xs.length && (xs[hi + 1] as RealizedPnl).at.getTime() === t) continue;
    while ((xs[lo] as RealizedPnl).at.getTime() <= t - windowMs) lo++;
    if (t < since) continue;
    const sum = (prefix[hi + 1] as bigint) - (prefix[lo] as bigint);
    if (sum <= -floor) return { at: (xs[hi] as RealizedPnl).at, usd: sum };
  }
  return undefined;
}

/**
 * The chain, in order; the first refusal ends a call. Closes pass every trading check
 * ("closing is always allowed"), but an unknown venue or an unreadable call never passes.
 */
export const EVALUATORS: readonly Evaluator[] = [
  {
    name: "knownCall",
    evaluate: (i) =>
      i.kind === "unknown"
        ? {
            // A decoder's own code when it is one of ours (state_unavailable), else call_unknown.
            code: (DENY_CODES as readonly string[]).includes(i.code)
              ? (i.code as DenyCode)
              : "call_unknown",
            reason: i.reason,
            manual: i.manual,
          }
        : undefined,
  },
  {
    name: "venueAllowlist",
    evaluate: (i, rules) => {
      if (i.kind !== "trade" && i.kind !== "leverage") return undefined;
      if (!(VENUES as readonly string[]).includes(i.venue)) {
        return { code: "venue_unknown", reason: `venue ${i.venue} is unknown to the signer` };
      }
      if (i.kind === "trade" && i.action === "close") return undefined;
      return rules.venues[i.venue as keyof PolicyRules["venues"]]
        ? undefined
        : { code: "venue_not_allowed", reason: `venue ${i.venue} is not in the policy` };
    },
  },
  {
    name: "allowedUtcHours",
    evaluate: (i, rules, s) => {
      if (!rules.allowedUtcHours || (i.kind === "trade" && i.action === "close")) return undefined;
      const h = s.now.getUTCHours();
      return rules.allowedUtcHours.includes(h)
        ? undefined
        : { code: "outside_allowed_hours", reason: `signing is not allowed at ${h}:00 UTC` };
    },
  },
  {
    name: "assets",
    evaluate: (i, rules) => {
      if (!opening(i) && i.kind !== "leverage") return undefined;
      const v = rules.venues[i.venue as keyof PolicyRules["venues"]];
      if (!v) return undefined; // venueAllowlist decided
      if (v.deny.includes(i.asset) || v.deny.includes("*")) {
        return { code: "asset_denied", reason: `${i.asset} is on the deny list of ${i.venue}` };
      }
      return v.assets.includes("*") || v.assets.includes(i.asset)
        ? undefined
        : {
            code: "asset_not_allowed",
            reason: `${i.asset} is not an allowed market of ${i.venue}`,
          };
    },
  },
  {
    name: "sides",
    evaluate: (i, rules) =>
      opening(i) && rules.sides !== "both" && rules.sides !== i.side
        ? { code: "side_not_allowed", reason: `${i.side} is not allowed (${rules.sides} only)` }
        : undefined,
  },
  {
    name: "maxLeverage",
    evaluate: (i, rules) =>
      (opening(i) || i.kind === "leverage") && i.leverage > rules.maxLeverage
        ? {
            code: "leverage_above_max",
            reason: `leverage ${i.leverage} exceeds the maximum of ${rules.maxLeverage}`,
          }
        : undefined,
  },
  {
    name: "maxPositionUsd",
    evaluate: (i, rules, s) => {
      if (!opening(i)) return undefined;
      const held = s.positions
        .filter((p) => p.venue === i.venue && p.asset === i.asset && p.side === i.side)
        .reduce((a, p) => a + p.notionalUsd, 0n);
      const after = held + i.notionalUsd;
      return after > usdToUnits(rules.maxPositionUsd)
        ? {
            code: "position_above_max",
            reason: `position on ${i.asset} would be ${usd(after)} USD, above ${rules.maxPositionUsd}`,
          }
        : undefined;
    },
  },
  {
    name: "maxOpenPositions",
    evaluate: (i, rules, s) => {
      if (!opening(i)) return undefined;
      if (s.positions.some((p) => p.venue === i.venue && p.asset === i.asset)) return undefined;
      return s.positions.length + 1 > rules.maxOpenPositions
        ? {
            code: "open_positions_at_max",
            reason: `${s.positions.length} positions are open; the maximum is ${rules.maxOpenPositions}`,
          }
        : undefined;
    },
  },
  {
    name: "dailyOpenBudgetUsd",
    evaluate: (i, rules, s) => {
      if (!opening(i)) return undefined;
      const after = s.openedTodayUsd + i.notionalUsd;
      return after > usdToUnits(rules.dailyOpenBudgetUsd)
        ? {
            code: "daily_budget_exceeded",
            reason: `${usd(s.openedTodayUsd)} USD opened today; ${usd(i.notionalUsd)} more exceeds ${rules.dailyOpenBudgetUsd}`,
          }
        : undefined;
    },
  },
  {
    name: "lossCooldown",
    evaluate: (i, rules, s) => {
      if (!opening(i) || rules.lossCooldownUsd === undefined) return undefined;
      const hit = lossFloorBreached(
        s.realized,
        usdToUnits(rules.lossCooldownUsd),
        rules.lossCooldownWindowSec,
        s.now,
      );
      return hit
        ? {
            code: "loss_cooldown",
            reason: `realized PnL ${usd(hit.usd)} USD reached the floor of -${rules.lossCooldownUsd} at ${hit.at.toISOString()}; opens resume at the next UTC midnight`,
          }
        : undefined;
    },
  },
  {
    name: "approveAllowlist",
    evaluate: (i, rules) => {
      if (i.kind !== "approve" && i.kind !== "transfer") return undefined;
      return rules.approveAllowlist.includes(i.to.toLowerCase())
        ? undefined
        : {
            code: i.kind === "approve" ? "approve_not_allowed" : "transfer_not_allowed",
            reason: `${i.kind} to ${i.to} is not on the approve allowlist`,
          };
    },
  },
];

export type Verdict =
  | { ok: true }
  | { ok: false; evaluator: string; code: DenyCode; reason: string; manual: boolean };

/**
 * Runs every evaluator in order against one policy version and one state snapshot.
 *
 * @example
 * const verdict = evaluate(intent, version.rules, state);
 * if (!verdict.ok) console.log(verdict.evaluator, verdict.code);
 */
export function evaluate(i: Intent, rules: PolicyRules, s: PolicyState): Verdict {
  for (const e of EVALUATORS) {
    const r = e.evaluate(i, rules, s);
    if (r) {
      return {
        ok: false,
        evaluator: e.name,
        code: r.code,
        reason: r.reason,
        manual: r.manual ?? false,
      };
    }
  }
  return { ok: true };
}
