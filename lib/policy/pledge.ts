// The agent's sell pledge: how much of its own token its wallet may sell (none for `lockDays`
// after launch, at most `maxDailySellBps` of its holding a UTC day). Pure: the terms, which of
// two is stricter, the pledge in force at a time, what a transaction disposes of, the verdict.
import { decodeFunctionData, erc20Abi, type Hex } from "viem";
import { z } from "zod";
import { tokenManager2Abi } from "../../abis/TokenManager2.ts";
import { uniswapV2Router02Abi } from "../../abis/UniswapV2Router02.ts";
import { PLEDGE_LIMITS } from "../limits.ts";
import type { PolicyActor } from "./model.ts";

const DAY_MS = 86_400_000;

/** A percentage with at most two decimals, "0" to "100", as basis points. */
const Percent = z
  .string()
  .regex(
    /^(100(\.0{1,2})?|[0-9]{1,2}(\.[0-9]{1,2})?)$/,
    'must be a percentage from "0" to "100" with at most 2 decimals, e.g. "2.5"',
  );

/** The terms an agent (or the operator) pledges; the body of `PUT /v2/agents/{agent}/pledge`. */
export const PledgeTerms = z.strictObject({
  lockDays: z.number().int().min(0).max(PLEDGE_LIMITS.maxLockDays),
  maxDailySellPercent: Percent,
  loosenDelayDays: z
    .number()
    .int()
    .min(PLEDGE_LIMITS.minLoosenDelayDays)
    .max(PLEDGE_LIMITS.maxLoosenDelayDays)
    .default(PLEDGE_LIMITS.defaultLoosenDelayDays),
});
export type PledgeTermsInput = z.input<typeof PledgeTerms>;

/** Terms as stored: the daily share in basis points (exact integers). */
export type Terms = { lockDays: number; maxDailySellBps: number; loosenDelayDays: number };

/** One saved version of the pledge: terms, when it binds, and whether a later save cancelled it. */
export type PledgeVersion = Terms & {
  id: string;
  createdAt: Date;
  effectiveAt: Date;
  cancelledAt: Date | null;
  createdBy: PolicyActor;
};

/**
 * "2.5" -> 250 basis points.
 *
 * @example
 * percentToBps("2.5"); // 250
 */
export function percentToBps(p: string): number {
  const [whole, frac = ""] = p.split(".");
  return Number(whole) * 100 + Number(frac.padEnd(2, "0"));
}

/**
 * 250 -> "2.5".
 *
 * @example
 * bpsToPercent(250); // "2.5"
 */
export function bpsToPercent(bps: number): string {
  const frac = String(bps % 100)
    .padStart(2, "0")
    .replace(/0+$/, "");
  return frac ? `${Math.floor(bps / 100)}.${frac}` : String(Math.floor(bps / 100));
}

/** The terms promised before any pledge: nothing (selling is free, a loosening waits no delay). */
export const NO_PLEDGE: Terms = { lockDays: 0, maxDailySellBps: 10_000, loosenDelayDays: 0 };

/** Each term at its stricter value of the two. */
export const strictest = (a: Terms, b: Terms): Terms => ({
  lockDays: Math.max(a.lockDays, b.lockDays),
  maxDailySellBps: Math.min(a.maxDailySellBps, b.maxDailySellBps),
  loosenDelayDays: Math.max(a.loosenDelayDays, b.loosenDelayDays),
});

const sameTerms = (a: Terms, b: Terms) =>
  a.lockDays === b.lockDays &&
  a.maxDailySellBps === b.maxDailySellBps &&
  a.loosenDelayDays === b.loosenDelayDays;

/**
 * The pledge in force at `at`: the newest uncancelled version whose time has come, else none.
 *
 * @example
 * const p = pledgeInForce(versions, new Date());
 */
export function pledgeInForce(versions: readonly PledgeVersion[], at: Date): PledgeVersion | null {
  let best: PledgeVersion | null = null;
  for (const v of versions) {
    if (v.cancelledAt !== null || v.effectiveAt > at) continue;
    if (
      !best ||
      v.effectiveAt > best.effectiveAt ||
      (v.effectiveAt.getTime() === best.effectiveAt.getTime() && BigInt(v.id) > BigInt(best.id))
    )
      best = v;
  }
  return best;
}

/** The loosening waiting its delay at `at`, if any. */
export function pendingPledge(versions: readonly PledgeVersion[], at: Date): PledgeVersion | null {
  return versions.find((v) => v.cancelledAt === null && v.effectiveAt > at) ?? null;
}

export type PlanSaveParameters = { current: Terms | null; next: Terms; now: Date };
/** What a save writes: terms in force now (if they change) and a loosening with its date. */
export type PlanSaveReturnType = {
  now: Terms | null;
  later: { terms: Terms; effectiveAt: Date } | null;
};

/**
 * A save of `next` over the pledge in force: every term that tightens binds at once; if any term
 * loosens, the whole of `next` binds only after the in-force pledge's own `loosenDelayDays`
 * (until then its tightened terms and the old values of the loosened ones apply). Every save
 * cancels a loosening still waiting.
 *
 * @example
 * planSave({ current, next, now }); // { now: {...}, later: { terms, effectiveAt } }
 */
export function planSave(p: PlanSaveParameters): PlanSaveReturnType {
  const current = p.current ?? NO_PLEDGE;
  const tight = strictest(current, p.next);
  const loosens = !sameTerms(tight, p.next);
  return {
    now: sameTerms(tight, current) && p.current !== null ? null : tight,
    later: loosens
      ? { terms: p.next, effectiveAt: new Date(p.now.getTime() + current.loosenDelayDays * DAY_MS) }
      : null,
  };
}

/** What a transaction of the agent's wallet disposes of its own token, if anything. */
export type DisposalContext = {
  token: string;
  router: string;
  /** The platform's contracts (lowercase): the bonding curve's `sellToken` is one of theirs. */
  platform: readonly string[];
};

/**
 * The token units of the agent's own token a transaction sells or sends away: a DEX sell
 * (`amountIn`, or `amountInMax` for an exact-out sell), a sale on the bonding curve
 * (TokenManager2 `sellToken`) or an ERC-20 `transfer`; 0n for anything else.
 *
 * @example
 * disposedAmount({ to: router, value: 0n, data }, { token, router, platform }); // 5n * 10n ** 18n
 */
export function disposedAmount(
  tx: { to: string; value: bigint; data?: Hex },
  ctx: DisposalContext,
): bigint {
  const to = tx.to.toLowerCase();
  const data = (tx.data ?? "0x") as Hex;
  if (data === "0x") return 0n;
  try {
    if (to === ctx.router) {
      const { functionName: fn, args } = decodeFunctionData({ abi: uniswapV2Router02Abi, data });
      if (!fn.startsWith("swapExactTokensFor") && !fn.startsWith("swapTokensForExact")) return 0n;
      const path = args[2] as readonly string[];
      if (path[0]?.toLowerCase() !== ctx.token) return 0n;
      return fn.startsWith("swapExact") ? (args[0] as bigint) : (args[1] as bigint);
    }
    if (ctx.platform.includes(to)) {
      const { functionName, args } = decodeFunctionData({ abi: tokenManager2Abi, data });
      if (functionName !== "sellToken") return 0n;
      // Forms (token, amount, …) and (origin, token, amount, …).
      const a = args as readonly unknown[];
      const [token, amount] = typeof a[0] === "string" ? [a[0], a[1]] : [a[1], a[2]];
      return String(token).toLowerCase() === ctx.token ? (amount as bigint) : 0n;
    }
    if (to === ctx.token) {
      const { functionName, args } = decodeFunctionData({ abi: erc20Abi, data });
      if (functionName === "transfer") return args[1] as bigint;
      if (functionName === "transferFrom") return args[2] as bigint;
    }
  } catch {}
  return 0n;
}

export type JudgeSellParameters = {
  pledge: Terms;
  now: Date;
  launchedAt: Date | null;
  /** The wallet's balance of its token now, and what it disposed of since 00:00 UTC. */
  balance: bigint;
  soldToday: bigint;
  amount: bigint;
};
export type SellVerdict =
  | { ok: true }
  | {
      ok: false;
      code: "sell_pledge_locked" | "sell_pledge_daily_exceeded";
      reason: string;
      expected: string;
      actual: string;
    };

/**
 * A disposal of `amount` against the pledge: refused inside the lock-up after launch, or when
 * today's disposals would pass `maxDailySellBps` of the holding (the balance now plus what was
 * disposed of today: the holding the day started with, less buys; floor).
 *
 * @example
 * judgeSell({ pledge, now, launchedAt, balance, soldToday, amount });
 */
export function judgeSell(p: JudgeSellParameters): SellVerdict {
  if (p.pledge.lockDays > 0) {
    const until = new Date(
      (p.launchedAt?.getTime() ?? p.now.getTime()) + p.pledge.lockDays * DAY_MS,
    );
    if (p.launchedAt === null || p.now < until) {
      return {
        ok: false,
        code: "sell_pledge_locked",
        reason: `the agent pledged not to sell its token until ${until.toISOString()} (${p.pledge.lockDays} days after launch)`,
        expected: `no sale before ${until.toISOString()}`,
        actual: `a sale of ${p.amount} units`,
      };
    }
  }
  const holding = p.balance + p.soldToday;
  const allowance = (holding * BigInt(p.pledge.maxDailySellBps)) / 10_000n;
  if (p.soldToday + p.amount > allowance) {
    const pct = bpsToPercent(p.pledge.maxDailySellBps);
    return {
      ok: false,
      code: "sell_pledge_daily_exceeded",
      reason: `the agent pledged to sell at most ${pct}% of its holding a day: ${allowance} of ${holding} units today, ${p.soldToday} already sold, ${p.amount} asked`,
      expected: `at most ${allowance} units sold today (${pct}% of ${holding})`,
      actual: `${p.soldToday + p.amount} units (${p.soldToday} sold + ${p.amount} asked)`,
    };
  }
  return { ok: true };
}

/** 00:00 UTC of `d`'s day: where a day's sells are counted from. */
export const utcDayStart = (d: Date) => new Date(Math.floor(d.getTime() / DAY_MS) * DAY_MS);
