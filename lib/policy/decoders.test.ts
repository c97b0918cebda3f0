import { encodeFunctionData, erc20Abi, parseEther } from "viem";
import { describe, expect, it } from "vitest";
import { uniswapV2Router02Abi } from "../../abis/UniswapV2Router02.ts";
import { usdToUnits } from "./model.ts";
import { decodePerpsAction, notional, type PerpsContext, perpsPositions } from "./perps.ts";
import { decodeBscTransaction, type SpotContext, weiToUsd } from "./spot.ts";

const wallet = `0x${"11".repeat(20)}`;
const router = `0x${"22".repeat(20)}`;
const wbnb = `0x${"33".repeat(20)}`;
const token = `0x${"44".repeat(20)}`;
const registry = `0x${"55".repeat(20)}`;
const ctx: SpotContext = {
  wallet,
  router,
  wbnb,
  platform: [registry],
  bnbUsd: { answer: 600_12345678n, decimals: 8 },
};
const swap = (functionName: string, args: unknown[]) =>
  encodeFunctionData({ abi: uniswapV2Router02Abi, functionName, args } as never);

describe("decodeBscTransaction", () => {
  it("a BNB->token swap is a spot open priced at the feed, rounded up", () => {
    const data = swap("swapExactETHForTokens", [1n, [wbnb, token], wallet, 99n]);
    const i = decodeBscTransaction({ to: router, value: parseEther("0.5"), data }, ctx);
    expect(i).toMatchObject({
      kind: "trade",
      venue: "bsc-dex-v2",
      asset: token,
      side: "long",
      action: "open",
      notionalUsd: usdToUnits("300.06172839"),
      leverage: 1,
    });
    expect(weiToUsd(1n, { answer: 1n, decimals: 8 })).toBe(1n); // 1e-26 USD rounds up to 1e-18
  });

  it("a token->BNB swap is a close; odd swaps are unknown and never trades", () => {
    const sell = swap("swapExactTokensForETHSupportingFeeOnTransferTokens", [
      5n,
      0n,
      [token, wbnb],
      wallet,
      99n,
    ]);
    expect(decodeBscTransaction({ to: router, value: 0n, data: sell }, ctx)).toMatchObject({
      kind: "trade",
      action: "close",
      asset: token,
    });
    const cases = [
      // pays out to someone else
      { value: 1n, data: swap("swapExactETHForTokens", [1n, [wbnb, token], registry, 99n]) },
      // a three-hop path
      { value: 1n, data: swap("swapExactETHForTokens", [1n, [wbnb, token, wbnb], wallet, 9n]) },
      // token to token
      {
        value: 0n,
        data: swap("swapExactTokensForTokens", [1n, 0n, [token, wbnb], wallet, 9n]),
      },
      // liquidity, not a trade
      {
        value: 1n,
        data: swap("addLiquidityETH", [token, 1n, 0n, 0n, wallet, 9n]),
      },
      // garbage after a router selector
      { value: 0n, data: "0x7ff36ab5deadbeef" as const },
    ];
    for (const c of cases) {
      expect(decodeBscTransaction({ to: router, ...c }, ctx).kind).toBe("unknown");
    }
  });

  it("approve, transfer, BNB transfer, platform call, anything else", () => {
    const approve = encodeFunctionData({
      abi: erc20Abi,
      functionName: "approve",
      args: [router as `0x${string}`, 10n],
    });
    expect(decodeBscTransaction({ to: token, value: 0n, data: approve }, ctx)).toMatchObject({
      kind: "approve",
      to: router,
      token,
      amount: "10",
    });
    const transfer = encodeFunctionData({
      abi: erc20Abi,
      functionName: "transfer",
      args: [registry as `0x${string}`, 7n],
    });
    expect(decodeBscTransaction({ to: token, value: 0n, data: transfer }, ctx)).toMatchObject({
      kind: "transfer",
      to: registry,
    });
    expect(decodeBscTransaction({ to: registry, value: 3n }, ctx)).toMatchObject({
      kind: "transfer",
      amount: "3",
    });
    expect(
      decodeBscTransaction(
        { to: registry.toUpperCase().replace("0X", "0x"), value: 0n, data: "0x1234" },
        ctx,
      ).kind,
    ).toBe("platform");
    expect(decodeBscTransaction({ to: token, value: 0n, data: "0x12345678" }, ctx)).toMatchObject({
      kind: "unknown",
      manual: true,
    });
    expect(decodeBscTransaction({ to: token, value: 0n }, ctx).kind).toBe("unknown");
  });
});

const perps: PerpsContext = {
  universe: [
    { name: "BTC", maxLeverage: 40 },
    { name: "ETH", maxLeverage: 25 },
  ],
  marks: { BTC: "60000.5", ETH: "3000" },
  positions: [{ coin: "ETH", szi: "-2", leverage: 3 }],
  leverage: { BTC: 2 },
};
const order = (o: Record<string, unknown>) => ({
  type: "order",
  grouping: "na",
  orders: [{ a: 0, b: true, p: "61000", s: "0.01", r: false, t: { limit: { tif: "Ioc" } }, ...o }],
});

describe("decodePerpsAction", () => {
  it("an order opens at the mark with the leverage the signer set", () => {
    expect(decodePerpsAction(order({}), perps)).toMatchObject({
      kind: "trade",
      venue: "hyperliquid",
      asset: "BTC",
      side: "long",
      action: "open",
      notionalUsd: usdToUnits("600.005"),
      leverage: 2,
    });
  });
  it("against a held position: reduce, close, flip", () => {
    expect(decodePerpsAction(order({ a: 1, s: "1" }), perps)).toMatchObject({
      action: "close",
      side: "short",
      leverage: 3,
    });
    expect(decodePerpsAction(order({ a: 1, s: "2.5" }), perps)).toMatchObject({
      action: "open",
      side: "long",
      notionalUsd: usdToUnits("1500"),
    });
    expect(decodePerpsAction(order({ a: 1, b: false, s: "1", r: true }), perps)).toMatchObject({
      action: "close",
    });
  });
  it("an unknown leverage counts as the venue's cap; leverage changes are intents", () => {
    const noLev = { ...perps, leverage: {} };
    expect(decodePerpsAction(order({}), noLev)).toMatchObject({ leverage: 40 });
    expect(
      decodePerpsAction({ type: "updateLeverage", asset: 1, isCross: true, leverage: 4 }, perps),
    ).toMatchObject({ kind: "leverage", asset: "ETH", leverage: 4 });
  });
  it("anything malformed is unknown", () => {
    for (const a of [
      order({ a: 9 }),
      order({ s: "1e3" }),
      order({ s: "0" }),
      { type: "order", grouping: "na", orders: [] },
      { type: "withdraw3" },
      { type: "updateLeverage", asset: 0, isCross: true, leverage: 0 },
    ]) {
      expect(decodePerpsAction(a, perps).kind, JSON.stringify(a)).toBe("unknown");
    }
    expect(decodePerpsAction(order({}), { ...perps, marks: {} }).kind).toBe("unknown");
  });
  it("positions at the mark; a coin without a mark counts as unbounded", () => {
    expect(notional("0.1", "3")).toBe(usdToUnits("0.3"));
    const ps = perpsPositions(
      [
        { coin: "ETH", szi: "-2", leverage: 3 },
        { coin: "DOGE", szi: "10", leverage: 1 },
        { coin: "BTC", szi: "0.0", leverage: 1 },
      ],
      perps.marks,
    );
    expect(ps).toHaveLength(2);
    expect(ps[0]).toMatchObject({ asset: "ETH", side: "short", notionalUsd: usdToUnits("6000") });
    expect(ps[1]?.notionalUsd).toBeGreaterThan(usdToUnits("1000000000"));
  });
});
