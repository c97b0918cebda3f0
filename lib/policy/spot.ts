import { decodeFunctionData, erc20Abi, type Hex } from "viem";
import { uniswapV2Router02Abi } from "../../abis/UniswapV2Router02.ts";
import type { Intent, UnknownIntent } from "./intent.ts";
import { SPOT_VENUE, USD_SCALE, unitsToUsd } from "./model.ts";

/** A BSC transaction the signer is asked to sign. */
export type BscTransaction = { to: string; value: bigint; data?: Hex };

/** What the decoder needs to know about the chain (the signer's configuration). */
export type SpotContext = {
  /** The agent wallet (lowercase): swaps must pay out to it. */
  wallet: string;
  /** The spot DEX v2 router and its wrapped BNB (lowercase). */
  router: string;
  wbnb: string;
  /** The platform's own contracts (identity registry, token manager): the launch calls them. */
  platform: readonly string[];
  /** BNB/USD: the feed's answer and its decimals. */
  bnbUsd: { answer: bigint; decimals: number };
};

const BUYS = new Set([
  "swapExactETHForTokens",
  "swapExactETHForTokensSupportingFeeOnTransferTokens",
  "swapETHForExactTokens",
]);
const SELLS = new Set([
  "swapExactTokensForETH",
  "swapExactTokensForETHSupportingFeeOnTransferTokens",
  "swapTokensForExactETH",
]);

const unknown = (code: string, reason: string, manual = false): UnknownIntent => ({
  kind: "unknown",
  manual,
  code,
  reason,
  summary: {},
});

/**
 * BNB wei in USD with 18 decimals, rounded up: a notional is never understated.
 *
 * @example
 * weiToUsd(10n ** 18n, { answer: 600_00000000n, decimals: 8 }); // 600 USD
 */
export function weiToUsd(wei: bigint, price: { answer: bigint; decimals: number }): bigint {
  const scaled = wei * price.answer; // 18 + decimals
  const div = 10n ** BigInt(price.decimals + 18 - USD_SCALE);
  return (scaled + div - 1n) / div;
}

/**
 * Decodes a BSC transaction into what it does: a spot swap on the DEX router (venue, asset,
 * side, USD notional), an approve, a transfer, a platform call, or `unknown` (never signed).
 * Pure: no chain access; the BNB price comes in the context.
 */
export function decodeBscTransaction(tx: BscTransaction, ctx: SpotContext): Intent {
  const to = tx.to.toLowerCase();
  const data = (tx.data ?? "0x").toLowerCase() as Hex;
  if (data === "0x") {
    return tx.value > 0n
      ? {
          kind: "transfer",
          to,
          amount: tx.value.toString(),
          summary: { to, amountWei: tx.value.toString() },
        }
      : unknown("call_unknown", "an empty transaction");
  }
  if (to === ctx.router) return decodeSwap(tx.value, data, ctx);
  if (ctx.platform.includes(to)) return { kind: "platform", summary: { to } };
  try {
    const { functionName, args } = decodeFunctionData({ abi: erc20Abi, data });
    if ((functionName === "approve" || functionName === "transfer") && tx.value === 0n) {
      const [dest, amount] = args as readonly [string, bigint];
      return {
        kind: functionName === "approve" ? "approve" : "transfer",
        to: dest.toLowerCase(),
        token: to,
        amount: amount.toString(),
        summary: { token: to, to: dest.toLowerCase(), amount: amount.toString() },
      };
    }
  } catch {}
  return unknown("call_unknown", `a call to ${to} the signer cannot read`, true);
}

function decodeSwap(value: bigint, data: Hex, ctx: SpotContext): Intent {
  let call: { functionName: string; args: readonly unknown[] };
  try {
    call = decodeFunctionData({ abi: uniswapV2Router02Abi, data }) as typeof call;
  } catch {
    return unknown("call_unknown", "router calldata the signer cannot decode");
  }
  const { functionName: fn, args } = call;
  if (!BUYS.has(fn) && !SELLS.has(fn)) {
    return unknown("call_unknown", `router function ${fn} is not a BNB swap the signer trades`);
  }
  const path = (fn.startsWith("swapETH") || fn.startsWith("swapExactETH") ? args[1] : args[2]) as
    | readonly string[]
    | undefined;
  const recipient = String(
    fn.startsWith("swapETH") || fn.startsWith("swapExactETH") ? args[2] : args[3],
  ).toLowerCase();
  if (!Array.isArray(path) || path.length !== 2) {
    return unknown("call_unknown", "only direct BNB pairs are traded (a path of two)");
  }
  if (recipient !== ctx.wallet) {
    return unknown("call_unknown", `the swap pays out to ${recipient}, not the agent wallet`);
  }
  const [from, out] = path.map((a) => a.toLowerCase()) as [string, string];
  if (BUYS.has(fn)) {
    if (from !== ctx.wbnb) return unknown("call_unknown", "a BNB buy must start at WBNB");
    const notionalUsd = weiToUsd(value, ctx.bnbUsd);
    return {
      kind: "trade",
      venue: SPOT_VENUE,
      asset: out,
      side: "long",
      action: "open",
      notionalUsd,
      leverage: 1,
      summary: {
        venue: SPOT_VENUE,
        function: fn,
        asset: out,
        side: "long",
        action: "open",
        valueWei: value.toString(),
        notionalUsd: unitsToUsd(notionalUsd),
      },
    };
  }
  if (out !== ctx.wbnb) return unknown("call_unknown", "a sell must end at WBNB");
  if (value !== 0n) return unknown("call_unknown", "a token sell carries no BNB");
  return {
    kind: "trade",
    venue: SPOT_VENUE,
    asset: from,
    side: "long",
    action: "close",
    notionalUsd: 0n,
    leverage: 1,
    summary: {
      venue: SPOT_VENUE,
      function: fn,
      asset: from,
      side: "long",
      action: "close",
      amount: String(args[0]),
    },
  };
}
