import { type Address, zeroAddress } from "viem";
import { tokenManager2Abi } from "../../abis/TokenManager2.ts";
import { LAUNCH_LIMITS } from "../limits.ts";
import type { SagaContext } from "./context.ts";
import type { SagaRow } from "./row.ts";

// The agent's first buy at launch: four.meme's `preSale`, bought for the creator inside
// createToken. four.meme's guides send `value = launch fee + preSale + its trading fee`
// (four-meme-ai create-token-api.ts: `preSale * _tradingFeeRate / 10000`); TokenManager2 refunds
// what the buy does not spend.

/** The first buy a saga asks for, in wei (0: none). */
export const firstBuyWei = (saga: Pick<SagaRow, "request">): bigint =>
  BigInt(saga.request.firstBuyWei ?? "0");

/** Whether the token is created in AntiSniperFeeMode (four.meme's `feePlan`); on unless asked off. */
export const antiSniper = (saga: Pick<SagaRow, "request">): boolean =>
  saga.request.antiSniper ?? true;

/**
 * BNB createToken carries for the first buy beyond the launch fee: the preSale and its trading
 * fee, rounded up (four.meme's scripts floor it; a wei more is refunded, a wei less could fall
 * short of a fee the contract rounds up).
 *
 * @example
 * const value = (await launchFee(ctx)) + (await firstBuyValue(ctx, firstBuyWei(saga)));
 */
export async function firstBuyValue(ctx: SagaContext, preSale: bigint): Promise<bigint> {
  if (preSale === 0n) return 0n;
  const rate = await ctx.client.readContract({
    address: ctx.contracts.tokenManager2,
    abi: tokenManager2Abi,
    functionName: "_tradingFeeRate",
  });
  return preSale + (preSale * rate + 9_999n) / 10_000n;
}

type TokenInfo = {
  base: Address;
  quote: Address;
  template: bigint;
  totalSupply: bigint;
  maxOffers: bigint;
  maxRaising: bigint;
  launchTime: bigint;
  offers: bigint;
  funds: bigint;
  lastPrice: bigint;
  K: bigint;
  T: bigint;
  status: bigint;
};

export type FirstBuyQuote = {
  /** Tokens the first buy gets (TokenManager2's `calcBuyAmount`). */
  tokens: bigint;
  /** The curve amount paid for them (`calcBuyCost`) and its fee (`calcTradingFee`). */
  costWei: bigint;
  feeWei: bigint;
};

/**
 * The first buy priced on a fresh curve by TokenManager2's own views (`calcBuyAmount`,
 * `calcBuyCost`, `calcTradingFee`), before the token exists. The fresh curve is that of the
 * newest BNB-raise token TokenManager2 created (looked back through the last
 * LAUNCH_LIMITS.freshCurveLookback), set back to its start (`offers = maxOffers`, `funds = 0`):
 * a raise preset's curve constants (`K`, `T`, `maxOffers`, `maxRaising`) are the same for every
 * token of it. null when no BNB-raise token exists yet to read them from.
 *
 * @example
 * const quote = await quoteFirstBuy(ctx, 10n ** 17n); // 0.1 BNB
 */
export async function quoteFirstBuy(
  ctx: SagaContext,
  preSale: bigint,
): Promise<FirstBuyQuote | null> {
  const tm = { address: ctx.contracts.tokenManager2, abi: tokenManager2Abi } as const;
  const count = await ctx.client.readContract({ ...tm, functionName: "_tokenCount" });
  const last = count - 1n;
  for (let i = last; i >= 0n && last - i < LAUNCH_LIMITS.freshCurveLookback; i--) {
    const token = await ctx.client.readContract({ ...tm, functionName: "_tokens", args: [i] });
    const r = await ctx.client.readContract({ ...tm, functionName: "_tokenInfos", args: [token] });
    if (r[1] !== zeroAddress) continue;
    const fresh: TokenInfo = {
      base: r[0],
      quote: r[1],
      template: r[2],
      totalSupply: r[3],
      maxOffers: r[4],
      maxRaising: r[5],
      launchTime: r[6],
      offers: r[4],
      funds: 0n,
      lastPrice: r[9],
      K: r[10],
      T: r[11],
      status: 0n,
    };
    if (preSale === 0n) return { tokens: 0n, costWei: 0n, feeWei: 0n };
    const tokens = await ctx.client.readContract({
      ...tm,
      functionName: "calcBuyAmount",
      args: [fresh, preSale],
    });
    const costWei =
      tokens === 0n
        ? 0n
        : await ctx.client.readContract({
            ...tm,
            functionName: "calcBuyCost",
            args: [fresh, tokens],
          });
    const feeWei = await ctx.client.readContract({
      ...tm,
      functionName: "calcTradingFee",
      args: [fresh, costWei],
    });
    return { tokens, costWei, feeWei };
  }
  return null;
}
