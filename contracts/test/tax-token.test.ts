import { type Account, type Address, erc20Abi, getAddress, parseEther, parseEventLogs } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { taxTokenAbi } from "../../abis/TaxToken.ts";
import { tokenDeployerAbi } from "../../abis/TokenDeployer.ts";
import { uniswapV2Router02Abi } from "../../abis/UniswapV2Router02.ts";
import { DEAD, startTestChain, type TestChain } from "./helpers.ts";

// four.meme's type-5 tax token on its own, with every allocation in use: the manager seeds the
// pair and switches to NORMAL, buys leave tax in the token, a sell dispatches it to founder
// (BNB), holders (WBNB to claim), burn and liquidity, and a holder claims.

let t: TestChain;
const E18 = 10n ** 18n;
const GAS = 1_500_000n;

beforeAll(async () => {
  t = await startTestChain();
}, 120_000);
afterAll(async () => t?.stop());

const read = (token: Address, functionName: string, args: unknown[] = []) =>
  t.publicClient.readContract({
    address: token,
    abi: taxTokenAbi,
    functionName: functionName as never,
    args: args as never,
  }) as Promise<bigint>;
const balanceOf = (token: Address, account: Address) =>
  t.publicClient.readContract({
    address: token,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [account],
  });

describe("TaxToken (type 5)", () => {
  let manager: Account;
  let founder: Account;
  let holder: Account;
  let trader: Account;
  let token: Address;
  const c = () => t.record.contracts;

  beforeAll(async () => {
    [manager, founder, holder, trader] = await Promise.all([
      t.fundedAccount("100"),
      t.fundedAccount("1"),
      t.fundedAccount("1"),
      t.fundedAccount("100"),
    ]);
    const receipt = await t.mined(
      await t.wallet(manager).writeContract({
        address: c().tokenDeployer,
        abi: tokenDeployerAbi,
        functionName: "deploy",
        args: [
          `0x${"11".repeat(32)}`,
          {
            name: "Split",
            symbol: "SPL",
            totalSupply: 10n ** 9n * E18,
            manager: manager.address,
            router: c().uniswapV2Router,
            pairInitCodeHash: t.record.pairInitCodeHash,
            feeRate: 1000n,
            sellFeeRate: 1000n,
            founder: founder.address,
            rateFounder: 40n,
            rateHolder: 30n,
            rateBurn: 20n,
            rateLiquidity: 10n,
            minDispatch: E18,
            minShare: 1_000n * E18,
          },
        ],
      }),
    );
    const [ev] = parseEventLogs({ abi: tokenDeployerAbi, logs: receipt.logs });
    token = getAddress(ev?.args.token as Address);
  }, 120_000);

  it("refuses rates that do not sum to 100 and a founder rate without a founder", async () => {
    const base = {
      name: "Bad",
      symbol: "BAD",
      totalSupply: E18,
      manager: manager.address,
      router: c().uniswapV2Router,
      pairInitCodeHash: t.record.pairInitCodeHash,
      feeRate: 300n,
      sellFeeRate: 300n,
      founder: founder.address,
      rateFounder: 100n,
      rateHolder: 0n,
      rateBurn: 0n,
      rateLiquidity: 0n,
      minDispatch: 0n,
      minShare: 0n,
    };
    const deploy = (p: typeof base) =>
      t.publicClient.simulateContract({
        account: manager,
        address: c().tokenDeployer,
        // The token's errors bubble up through the deployer.
        abi: [...tokenDeployerAbi, ...taxTokenAbi.filter((i) => i.type === "error")],
        functionName: "deploy",
        args: [`0x${"22".repeat(32)}`, p],
      });
    await expect(deploy({ ...base, rateBurn: 1n })).rejects.toThrow(/BadTerms/);
    await expect(deploy(base)).resolves.toBeTruthy();
    await expect(
      deploy({ ...base, founder: "0x0000000000000000000000000000000000000000" }),
    ).rejects.toThrow(/BadTerms/);
    await expect(deploy({ ...base, feeRate: 1001n })).rejects.toThrow(/BadTerms/);
  });

  it("dispatches the kept tax by the rates and lets a holder claim its WBNB", async () => {
    const m = t.wallet(manager);
    const router = c().uniswapV2Router;
    const deadline = 2n ** 40n;
    await t.mined(
      await m.writeContract({
        address: token,
        abi: erc20Abi,
        functionName: "approve",
        args: [router, 10n ** 8n * E18],
      }),
    );
    await t.mined(
      await m.writeContract({
        address: router,
        abi: uniswapV2Router02Abi,
        functionName: "addLiquidityETH",
        args: [token, 10n ** 8n * E18, 0n, 0n, DEAD, deadline],
        value: parseEther("10"),
        // Creates the pair as well.
        gas: 8_000_000n,
      }),
    );
    await t.mined(
      await m.writeContract({
        address: token,
        abi: taxTokenAbi,
        functionName: "setMode",
        args: [0n],
      }),
    );
    // The owner's transfers are untaxed; the holder now holds a share.
    await t.mined(
      await m.writeContract({
        address: token,
        abi: erc20Abi,
        functionName: "transfer",
        args: [holder.address, 10n ** 6n * E18],
      }),
    );
    expect(await balanceOf(token, holder.address)).toBe(10n ** 6n * E18);

    const w = t.wallet(trader);
    await t.mined(
      await w.writeContract({
        address: router,
        abi: uniswapV2Router02Abi,
        functionName: "swapExactETHForTokens",
        args: [0n, [c().wbnb, token], trader.address, deadline],
        value: parseEther("1"),
        gas: GAS,
      }),
    );
    const kept = await read(token, "feeAccumulated");
    expect(kept).toBeGreaterThan(0n);
    expect(await balanceOf(token, token)).toBe(kept);

    const sell = 1_000n * E18;
    await t.mined(
      await w.writeContract({
        address: token,
        abi: erc20Abi,
        functionName: "approve",
        args: [router, sell],
      }),
    );
    const [dead0, founder0] = [
      await balanceOf(token, DEAD),
      await t.publicClient.getBalance({ address: founder.address }),
    ];
    const receipt = await t.mined(
      await w.writeContract({
        address: router,
        abi: uniswapV2Router02Abi,
        functionName: "swapExactTokensForETHSupportingFeeOnTransferTokens",
        args: [sell, 0n, [token, c().wbnb], trader.address, deadline],
        gas: GAS,
      }),
    );
    const [d] = parseEventLogs({
      abi: taxTokenAbi,
      logs: receipt.logs,
      eventName: "FeeDispatched",
    });
    const a = d?.args;
    expect(a?.amountFounder).toBe((kept * 40n) / 100n);
    expect(a?.amountHolder).toBe((kept * 30n) / 100n);
    expect(a?.amountBurn).toBe((kept * 20n) / 100n);
    expect(a?.amountLiquidity).toBe((kept * 10n) / 100n);
    // Founder and holders got BNB in the ratio of their token shares (one swap, shared pro rata).
    expect(a?.quoteFounder).toBeGreaterThan(0n);
    const [qF, qH, aF, aH] = [
      a?.quoteFounder,
      a?.quoteHolder,
      a?.amountFounder,
      a?.amountHolder,
    ].map((v) => v ?? 0n) as [bigint, bigint, bigint, bigint];
    const skew = qF * aH - qH * aF;
    expect(skew < 0n ? -skew : skew).toBeLessThanOrEqual(aF + aH);
    expect((await t.publicClient.getBalance({ address: founder.address })) - founder0).toBe(
      a?.quoteFounder,
    );
    expect((await balanceOf(token, DEAD)) - dead0).toBe(a?.amountBurn);
    expect(await balanceOf(c().wbnb, token)).toBe(a?.quoteHolder);
    expect(await read(token, "feeHolder")).toBe(a?.quoteHolder);
    // The sell's own 10% is kept for the next dispatch.
    expect(await read(token, "feeAccumulated")).toBe(
      kept -
        (a?.amountFounder ?? 0n) -
        (a?.amountHolder ?? 0n) -
        (a?.amountBurn ?? 0n) -
        (a?.amountLiquidity ?? 0n) +
        sell / 10n,
    );

    // Holders share quoteHolder pro rata; the holder claims its part in WBNB.
    const claimable = await read(token, "claimableFee", [holder.address]);
    const traderClaimable = await read(token, "claimableFee", [trader.address]);
    expect(claimable).toBeGreaterThan(0n);
    expect(claimable + traderClaimable).toBeLessThanOrEqual(a?.quoteHolder ?? 0n);
    const claim = await t.mined(
      await t.wallet(trader).writeContract({
        address: token,
        abi: taxTokenAbi,
        functionName: "claimFee",
        args: [[holder.address]],
      }),
    );
    const [fc] = parseEventLogs({ abi: taxTokenAbi, logs: claim.logs, eventName: "FeeClaimed" });
    expect(fc?.args).toEqual({ account: getAddress(holder.address), amount: claimable });
    expect(await balanceOf(c().wbnb, holder.address)).toBe(claimable);
    expect(await read(token, "claimedFee", [holder.address])).toBe(claimable);
    expect(await read(token, "claimableFee", [holder.address])).toBe(0n);
    expect(await read(token, "userCount")).toBeGreaterThanOrEqual(2n);
  });
});
