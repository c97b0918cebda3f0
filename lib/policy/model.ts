import { z } from "zod";
import { POLICY_CEILINGS, POLICY_LIMITS } from "../limits.ts";

// The trading policy (docs/policies.md): one document per
// version, validated here by the API (before it asks the signer) and again by the signer
// (which holds the authoritative copy). Amounts are decimal strings, never floats.

/** The venues a policy may allow. Anything else is unknown and fails closed. */
export const VENUES = ["hyperliquid", "bsc-dex-v2"] as const;
export type Venue = (typeof VENUES)[number];
export const PERPS_VENUE: Venue = "hyperliquid";
export const SPOT_VENUE: Venue = "bsc-dex-v2";

const USD = new RegExp(`^\\d{1,12}(\\.\\d{1,${POLICY_LIMITS.usdDecimals}})?$`);
const usd = (ceiling?: string) => {
  const base = z
    .string()
    .regex(USD, `must be a USD decimal string with at most ${POLICY_LIMITS.usdDecimals} decimals`);
  return ceiling === undefined
    ? base
    : base.refine((v) => !USD.test(v) || usdCmp(v, ceiling) <= 0, {
        message: `exceeds the platform ceiling of ${ceiling} USD`,
      });
};
/** A whole number from `min` up to a platform ceiling. */
const upToCeiling = (min: number, ceiling: number) =>
  z
    .number()
    .int("must be an integer")
    .min(min)
    .max(ceiling, { message: `exceeds the platform ceiling of ${ceiling}` });

/** A market: a perps coin ("BTC") or a BSC token address (lowercased); "*" is every market. */
const Market = z
  .string()
  .min(1)
  .max(64)
  .regex(/^(\*|[A-Za-z0-9]{1,20}|0x[0-9a-fA-F]{40})$/, "must be a coin, a token address or *")
  .transform((m) => (m.startsWith("0x") ? m.toLowerCase() : m));
const Address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 20-byte hex address")
  .transform((a) => a.toLowerCase());

export const VenueRules = z.strictObject({
  /** Allowed markets; ["*"] allows every market of the venue not in `deny`. */
  assets: z.array(Market).max(POLICY_LIMITS.maxAssetsPerVenue),
  deny: z.array(Market).max(POLICY_LIMITS.maxAssetsPerVenue).default([]),
});
export type VenueRules = z.infer<typeof VenueRules>;

/** The policy document: every field of docs/policies.md, the ceilings checked field by field. */
export const PolicyRules = z
  .strictObject({
    /** The venue allowlist: only venues named here may be traded on. */
    venues: z.strictObject({
      hyperliquid: VenueRules.optional(),
      "bsc-dex-v2": VenueRules.optional(),
    }),
    sides: z.enum(["long", "short", "both"]),
    maxLeverage: upToCeiling(1, POLICY_CEILINGS.maxLeverage),
    maxPositionUsd: usd(POLICY_CEILINGS.maxPositionUsd),
    maxOpenPositions: upToCeiling(0, POLICY_CEILINGS.maxOpenPositions),
    dailyOpenBudgetUsd: usd(POLICY_CEILINGS.dailyOpenBudgetUsd),
    /** Realized-PnL floor as a positive amount: at or below -lossCooldownUsd, opens stop. */
    lossCooldownUsd: usd().optional(),
    lossCooldownWindowSec: z
      .number()
      .int()
      .min(POLICY_LIMITS.minLossWindowSec)
      .max(POLICY_LIMITS.maxLossWindowSec)
      .default(POLICY_LIMITS.defaultLossWindowSec),
    /** Approve spenders and transfer recipients (token or BNB) allowed from the agent wallet. */
    approveAllowlist: z.array(Address).max(POLICY_LIMITS.maxApproveAllowlist).default([]),
    /** UTC hours in which signing is allowed; absent: every hour. */
    allowedUtcHours: z
      .array(z.number().int().min(0).max(23))
      .min(1)
      .max(24)
      .refine((h) => new Set(h).size === h.length, "must not repeat an hour")
      .optional(),
  })
  .superRefine((p, ctx) => {
    for (const venue of VENUES) {
      const v = p.venues[venue];
      if (!v) continue;
      if (v.assets.includes("*") && v.assets.length > 1) {
        ctx.addIssue({
          code: "custom",
          path: ["venues", venue, "assets"],
          message: '"*" must be alone',
        });
      }
    }
  });
export type PolicyRules = z.infer<typeof PolicyRules>;
/** What a client sends (defaults not yet applied). */
export type PolicyRulesInput = z.input<typeof PolicyRules>;

/** Who saved a version. */
export type PolicyActor = { kind: "agent" | "operator" | "signer"; id: string };

/** One immutable version of an agent's policy, as the signer stores and returns it. */
export type PolicyVersion = {
  policyId: string;
  version: number;
  rules: PolicyRules;
  createdAt: string;
  createdBy: PolicyActor;
};

/**
 * The policy of a wallet nobody has set one for: nothing may be traded, approved or sent.
 * Fail closed: an agent trades only after a policy allows it.
 */
export const INITIAL_RULES: PolicyRules = {
  venues: {},
  sides: "long",
  maxLeverage: 1,
  maxPositionUsd: "0",
  maxOpenPositions: 0,
  dailyOpenBudgetUsd: "0",
  lossCooldownWindowSec: POLICY_LIMITS.defaultLossWindowSec,
  approveAllowlist: [],
};

/** USD amounts as integers of micro-dollars scaled to 18 decimals: exact products of size × price. */
export const USD_SCALE = 18;

/**
 * A USD decimal string as an integer with 18 decimals.
 *
 * @example
 * usdToUnits("1.5"); // 1_500_000_000_000_000_000n
 */
export function usdToUnits(text: string): bigint {
  const m = /^(-?)(\d+)(?:\.(\d{1,18}))?$/.exec(text);
  if (!m) throw new Error(`not a USD amount: ${text}`);
  const v = BigInt(`${m[2]}${(m[3] ?? "").padEnd(USD_SCALE, "0")}`);
  return m[1] ? -v : v;
}

/**
 * An integer with 18 decimals as a decimal string without trailing zeros.
 *
 * @example
 * unitsToUsd(1_500_000_000_000_000_000n); // "1.5"
 */
export function unitsToUsd(v: bigint): string {
  const neg = v < 0n;
  const digits = (neg ? -v : v).toString().padStart(USD_SCALE + 1, "0");
  const int = digits.slice(0, -USD_SCALE);
  const frac = digits.slice(-USD_SCALE).replace(/0+$/, "");
  return `${neg ? "-" : ""}${int}${frac ? `.${frac}` : ""}`;
}

function usdCmp(a: string, b: string): number {
  const x = usdToUnits(a);
  const y = usdToUnits(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
