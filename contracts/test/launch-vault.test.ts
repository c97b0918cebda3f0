import { type Account, type Address, erc20Abi, getAddress, parseEther, parseEventLogs } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchFactoryAbi } from "../../abis/LaunchFactory.ts";
import { launchVaultAbi } from "../../abis/LaunchVault.ts";
import { safeL2Abi } from "../../abis/SafeL2.ts";
import { taxTokenAbi } from "../../abis/TaxToken.ts";
import { uniswapV2PairAbi } from "../../abis/UniswapV2Pair.ts";
import { uniswapV2Router02Abi } from "../../abis/UniswapV2Router02.ts";
import { devnetAccounts } from "../../devnet/accounts.ts";
import { DEAD, gasCost, startTestChain, type TestChain } from "./helpers.ts";

const SUPPLY = 10n ** 27n;
let t: TestChain;
let factory: Address;

beforeAll(async () => {
  t = await startTestChain();
  factory = t.record.contracts.launchFactory;
});
afterAll(async () => {
  await t?.stop();
});

const now = async () => (await t.publicClient.getBlock()).timestamp;
const bal = (address: Address) => t.publicClient.getBalance({ address });
const warp = async (seconds: bigint) => {
  await t.testClient.increaseTime({ seconds: Number(seconds) });
  await t.testClient.mine({ blocks: 1 });
};

async function createLaunch(creator: Account, p: { tier?: number; closeIn?: bigint } = {}) {
  const close = (await now()) + (p.closeIn ?? 3600n);
  const receipt = await t.mined(
    await t.wallet(creator).writeContract({
      address: factory,
      abi: launchFactoryAbi,
      functionName: "createLaunch",
      args: [
        p.tier ?? 0,
        "Deposit Agent",
        "DEP",
        '{"description":"d"}',
        close,
        200,
        300,
        creator.address,
      ],
    }),
  );
  const [ev] = parseEventLogs({
    abi: launchFactoryAbi,
    logs: receipt.logs,
    eventName: "LaunchCreated",
  });
  if (!ev) throw new Error("no LaunchCreated");
  return { ...ev.args, close, receipt };
}

/** Runs a vault call from `who`, returns the receipt and the BNB `who` paid for gas. */
async function vaultTx(
  who: Account,
  vault: Address,
  functionName:
    | "deposit"
    | "withdraw"
    | "close"
    | "executeLaunch"
    | "claim"
    | "enableRefund"
    | "refund"
    | "distribute",
  opts: { value?: bigint; args?: readonly bigint[] } = {},
) {
  const hash = await t.wallet(who).writeContract({
    address: vault,
    abi: launchVaultAbi,
    functionName,
    // The union of argument shapes is checked by the contract call itself.
    args: opts.args as never,
    value: opts.value as never,
  } as never);
  const receipt = await t.mined(hash);
  return { receipt, gas: gasCost(receipt) };
}

const read = <T>(vault: Address, functionName: string, args: readonly unknown[] = []) =>
  t.publicClient.readContract({
    address: vault,
    abi: launchVaultAbi,
    functionName: functionName as never,
    args: args as never,
  }) as Promise<T>;

describe("LaunchFactory", () => {
  it("creates a vault and a treasury Safe and predicts the token address", async () => {
    const creator = await t.fundedAccount("10");
    const ev = await createLaunch(creator);
    expect(ev.launchId).toBeGreaterThan(0n);
    expect(getAddress(ev.router)).toBe(getAddress(t.record.contracts.uniswapV2Router));
    expect(ev.creator).toBe(creator.address);
    expect(ev.tier).toBe(0);
    expect(ev.closeTimestamp).toBe(ev.close);
    expect(ev.buyTaxBps).toBe(200);
    expect(ev.sellTaxBps).toBe(300);
    const [meta] = parseEventLogs({
      abi: launchFactoryAbi,
      logs: ev.receipt.logs,
      eventName: "LaunchMetadata",
    });
    expect(meta?.args).toEqual({
      launchId: ev.launchId,
      name: "Deposit Agent",
      symbol: "DEP",
      metadata: '{"description":"d"}',
    });
    expect(
      await t.publicClient.readContract({
        address: ev.treasury,
        abi: safeL2Abi,
        functionName: "getOwners",
      }),
    ).toEqual([creator.address]);
    expect(
      await t.publicClient.readContract({
        address: ev.treasury,
        abi: safeL2Abi,
        functionName: "getThreshold",
      }),
    ).toBe(1n);
    expect(await read<Address>(ev.vault, "predictedToken")).toBe(ev.predictedToken);
    expect(await t.publicClient.getCode({ address: ev.predictedToken })).toBeUndefined();
    expect(
      await t.publicClient.readContract({
        address: factory,
        abi: launchFactoryAbi,
        functionName: "vaults",
        args: [ev.launchId],
      }),
    ).toBe(ev.vault);
  });

  it("refuses a disabled tier, a bad close time, excessive tax and tier edits by others", async () => {
    const creator = await t.fundedAccount("10");
    const w = t.wallet(creator);
    const ts = await now();
    const call = (tier: number, close: bigint, buy: number) =>
      w.writeContract({
        address: factory,
        abi: launchFactoryAbi,
        functionName: "createLaunch",
        args: [tier, "n", "s", "", close, buy, 0, creator.address],
      });
    await expect(call(9, ts + 100n, 0)).rejects.toThrow(/TierDisabled/);
    await expect(call(0, ts - 1n, 0)).rejects.toThrow(/BadClose/);
    await expect(call(0, ts + 31n * 86400n, 0)).rejects.toThrow(/BadClose/);
    await expect(call(0, ts + 100n, 1001)).rejects.toThrow(/TaxTooHigh/);
    const tier = {
      minRaise: 1n,
      maxRaise: 2n,
      minDeposit: 0n,
      maxPerWallet: 1n,
      liquidityBps: 5000,
      enabled: true,
    };
    await expect(
      w.writeContract({
        address: factory,
        abi: launchFactoryAbi,
        functionName: "setTier",
        args: [5, tier],
      }),
    ).rejects.toThrow(/OwnableUnauthorizedAccount/);
  });
});

describe("LaunchVault: launch and claims", () => {
  it("runs open -> closed -> launched -> claimed with every forbidden move refused and BNB to the wei", async () => {
    const creator = await t.fundedAccount("10");
    const [a, b, c] = [
      await t.fundedAccount("10"),
      await t.fundedAccount("10"),
      await t.fundedAccount("10"),
    ];
    const start = { a: await bal(a.address), b: await bal(b.address), c: await bal(c.address) };
    const gas = { a: 0n, b: 0n, c: 0n };
    const ev = await createLaunch(creator);
    const vault = ev.vault;

    gas.a += (await vaultTx(a, vault, "deposit", { value: parseEther("2") })).gas;
    const dep = await vaultTx(b, vault, "deposit", { value: parseEther("1.5") });
    gas.b += dep.gas;
    const [deposited] = parseEventLogs({
      abi: launchVaultAbi,
      logs: dep.receipt.logs,
      eventName: "Deposited",
    });
    expect(deposited?.args).toEqual({
      depositor: b.address,
      amount: parseEther("1.5"),
      totalDeposited: parseEther("3.5"),
    });
    gas.c += (await vaultTx(c, vault, "deposit", { value: parseEther("0.7") })).gas;
    const wd = await vaultTx(b, vault, "withdraw", { args: [parseEther("0.5")] });
    gas.b += wd.gas;
    const [withdrew] = parseEventLogs({
      abi: launchVaultAbi,
      logs: wd.receipt.logs,
      eventName: "Withdrew",
    });
    expect(withdrew?.args).toEqual({
      depositor: b.address,
      amount: parseEther("0.5"),
      totalDeposited: parseEther("3.7"),
    });

    // Tier limits and open-state refusals.
    await expect(vaultTx(c, vault, "deposit", { value: parseEther("0.001") })).rejects.toThrow(
      /BelowMinDeposit/,
    );
    await expect(vaultTx(a, vault, "deposit", { value: parseEther("3.5") })).rejects.toThrow(
      /AboveWalletLimit/,
    );
    await expect(vaultTx(c, vault, "withdraw", { args: [parseEther("0.8")] })).rejects.toThrow(
      /InsufficientDeposit/,
    );
    await expect(vaultTx(c, vault, "close")).rejects.toThrow(/TooEarly/);
    await expect(vaultTx(c, vault, "executeLaunch")).rejects.toThrow(/WrongState/);
    await expect(vaultTx(c, vault, "claim")).rejects.toThrow(/WrongState/);
    await expect(vaultTx(c, vault, "refund")).rejects.toThrow(/WrongState/);
    expect(await bal(vault)).toBe(parseEther("3.7"));

    await warp(3600n);
    await expect(vaultTx(c, vault, "deposit", { value: parseEther("0.1") })).rejects.toThrow(
      /TooLate/,
    );
    await expect(vaultTx(c, vault, "withdraw", { args: [parseEther("0.1")] })).rejects.toThrow(
      /WrongState/,
    );
    const closed = await vaultTx(c, vault, "close");
    gas.c += closed.gas;
    const [closedEv] = parseEventLogs({
      abi: launchVaultAbi,
      logs: closed.receipt.logs,
      eventName: "Closed",
    });
    expect(closedEv?.args).toEqual({ totalDeposited: parseEther("3.7"), depositorCount: 3n });
    await expect(vaultTx(c, vault, "close")).rejects.toThrow(/WrongState/);
    await expect(vaultTx(c, vault, "deposit", { value: parseEther("0.1") })).rejects.toThrow(
      /WrongState/,
    );
    await expect(vaultTx(c, vault, "withdraw", { args: [parseEther("0.1")] })).rejects.toThrow(
      /WrongState/,
    );
    // The minimum is met: refunds cannot be forced by a depositor.
    await expect(vaultTx(c, vault, "enableRefund")).rejects.toThrow(/NotAllowed/);

    const launched = await vaultTx(a, vault, "executeLaunch");
    gas.a += launched.gas;
    const [exec] = parseEventLogs({
      abi: launchVaultAbi,
      logs: launched.receipt.logs,
      eventName: "LaunchExecuted",
    });
    const token = exec?.args.token as Address;
    expect(token).toBe(ev.predictedToken);
    expect(await read<Address>(vault, "token")).toBe(token);
    expect(exec?.args.liquidityBnb).toBe(parseEther("3.7"));
    expect(exec?.args.liquidityTokens).toBe(SUPPLY / 2n);
    expect(exec?.args.tokensForDepositors).toBe(SUPPLY / 2n);
    const pair = exec?.args.pair as Address;
    expect(pair).toBe(
      await t.publicClient.readContract({ address: token, abi: taxTokenAbi, functionName: "pair" }),
    );
    const [r0, r1] = await t.publicClient.readContract({
      address: pair,
      abi: uniswapV2PairAbi,
      functionName: "getReserves",
    });
    expect([r0, r1].sort()).toEqual([parseEther("3.7"), SUPPLY / 2n].sort());
    const lp = await t.publicClient.readContract({
      address: pair,
      abi: uniswapV2PairAbi,
      functionName: "totalSupply",
    });
    expect(
      await t.publicClient.readContract({
        address: pair,
        abi: uniswapV2PairAbi,
        functionName: "balanceOf",
        args: [DEAD],
      }),
    ).toBe(lp - 1000n);
    expect(await bal(vault)).toBe(0n);
    await expect(vaultTx(a, vault, "executeLaunch")).rejects.toThrow(/WrongState/);
    await expect(vaultTx(a, vault, "refund")).rejects.toThrow(/WrongState/);
    await expect(vaultTx(a, vault, "enableRefund")).rejects.toThrow(/WrongState/);

    // Claims: a pulls, then distribute pushes the rest; nobody is paid twice.
    const total = parseEther("3.7");
    const owed = (d: bigint) => ((SUPPLY / 2n) * d) / total;
    const claimA = await vaultTx(a, vault, "claim");
    gas.a += claimA.gas;
    expect(
      await t.publicClient.readContract({
        address: token,
        abi: erc20Abi,
        functionName: "balanceOf",
        args: [a.address],
      }),
    ).toBe(owed(parseEther("2")));
    await expect(vaultTx(a, vault, "claim")).rejects.toThrow(/NothingToClaim/);
    const dist = await vaultTx(creator, vault, "distribute", { args: [0n, 10n] });
    const claimed = parseEventLogs({
      abi: launchVaultAbi,
      logs: dist.receipt.logs,
      eventName: "Claimed",
    });
    expect(claimed.map((e) => [e.args.depositor, e.args.amount])).toEqual([
      [b.address, owed(parseEther("1"))],
      [c.address, owed(parseEther("0.7"))],
    ]);
    const [distributed] = parseEventLogs({
      abi: launchVaultAbi,
      logs: dist.receipt.logs,
      eventName: "Distributed",
    });
    expect(distributed?.args.amount).toBe(owed(parseEther("1")) + owed(parseEther("0.7")));
    await expect(vaultTx(b, vault, "claim")).rejects.toThrow(/NothingToClaim/);
    const paid = owed(parseEther("2")) + owed(parseEther("1")) + owed(parseEther("0.7"));
    const dust = await t.publicClient.readContract({
      address: token,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [vault],
    });
    expect(dust).toBe(SUPPLY / 2n - paid);
    expect(dust).toBeLessThan(3n);
    expect(await read<bigint>(vault, "tokensClaimed")).toBe(paid);

    // BNB to the wei: every depositor is down exactly their net deposit plus gas.
    expect(start.a - (await bal(a.address))).toBe(parseEther("2") + gas.a);
    expect(start.b - (await bal(b.address))).toBe(parseEther("1") + gas.b);
    expect(start.c - (await bal(c.address))).toBe(parseEther("0.7") + gas.c);

    // The token trades on the DEX and its tax reaches the treasury Safe.
    const router = t.record.contracts.uniswapV2Router;
    const trader = await t.fundedAccount("10");
    await t.mined(
      await t.wallet(trader).writeContract({
        address: router,
        abi: uniswapV2Router02Abi,
        functionName: "swapExactETHForTokens",
        args: [0n, [t.record.contracts.wbnb, token], trader.address, 2n ** 40n],
        value: parseEther("0.1"),
        // The pair's first price-accumulator write depends on the mined block's timestamp, so
        // an estimate made in the previous block's second can come out short.
        gas: 300_000n,
      }),
    );
    // The buy's tax stays with the token; the next sell dispatches it: the treasury's share
    // (the factory's 50%) as BNB to the Safe, the rest burned.
    const kept = await t.publicClient.readContract({
      address: token,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [token],
    });
    expect(kept).toBeGreaterThan(0n);
    const sell = 1_000n * 10n ** 18n;
    const tw = t.wallet(trader);
    await t.mined(
      await tw.writeContract({
        address: token,
        abi: erc20Abi,
        functionName: "approve",
        args: [router, sell],
      }),
    );
    const safeBnb = await bal(ev.treasury);
    const receipt = await t.mined(
      await tw.writeContract({
        address: router,
        abi: uniswapV2Router02Abi,
        functionName: "swapExactTokensForETHSupportingFeeOnTransferTokens",
        args: [sell, 0n, [token, t.record.contracts.wbnb], trader.address, 2n ** 40n],
        gas: 1_000_000n,
      }),
    );
    const [d] = parseEventLogs({
      abi: taxTokenAbi,
      logs: receipt.logs,
      eventName: "FeeDispatched",
    });
    expect(d?.args.amountFounder).toBe(kept / 2n);
    expect(d?.args.amountBurn).toBe(kept / 2n);
    expect(d?.args.quoteFounder).toBeGreaterThan(0n);
    expect((await bal(ev.treasury)) - safeBnb).toBe(d?.args.quoteFounder);
  });
});

describe("LaunchVault: refunds", () => {
  it("refunds everyone when the raise misses the tier minimum", async () => {
    const creator = await t.fundedAccount("10");
    const [a, b] = [await t.fundedAccount("10"), await t.fundedAccount("10")];
    const start = { a: await bal(a.address), b: await bal(b.address) };
    let gasA = 0n;
    let gasB = 0n;
    const { vault } = await createLaunch(creator, { closeIn: 600n });
    gasA += (await vaultTx(a, vault, "deposit", { value: parseEther("0.3") })).gas;
    gasB += (await vaultTx(b, vault, "deposit", { value: parseEther("0.2") })).gas;
    await expect(vaultTx(a, vault, "enableRefund")).rejects.toThrow(/WrongState/);
    await warp(600n);
    const en = await vaultTx(a, vault, "enableRefund");
    gasA += en.gas;
    // enableRefund closes the expired vault on the way.
    expect(
      parseEventLogs({ abi: launchVaultAbi, logs: en.receipt.logs, eventName: "Closed" }),
    ).toHaveLength(1);
    const [enabled] = parseEventLogs({
      abi: launchVaultAbi,
      logs: en.receipt.logs,
      eventName: "RefundEnabled",
    });
    expect(enabled?.args).toEqual({ reason: 1, totalDeposited: parseEther("0.5") });
    await expect(vaultTx(a, vault, "executeLaunch")).rejects.toThrow(/WrongState/);
    await expect(vaultTx(a, vault, "claim")).rejects.toThrow(/WrongState/);
    const ra = await vaultTx(a, vault, "refund");
    gasA += ra.gas;
    const [refunded] = parseEventLogs({
      abi: launchVaultAbi,
      logs: ra.receipt.logs,
      eventName: "Refunded",
    });
    expect(refunded?.args).toEqual({ depositor: a.address, amount: parseEther("0.3") });
    await expect(vaultTx(a, vault, "refund")).rejects.toThrow(/NothingToClaim/);
    gasB += (await vaultTx(b, vault, "refund")).gas;
    const stranger = await t.fundedAccount("1");
    await expect(vaultTx(stranger, vault, "refund")).rejects.toThrow(/NothingToClaim/);
    expect(await bal(vault)).toBe(0n);
    expect(start.a - (await bal(a.address))).toBe(gasA);
    expect(start.b - (await bal(b.address))).toBe(gasB);
  });

  it("refuses executeLaunch below the minimum", async () => {
    const creator = await t.fundedAccount("10");
    const a = await t.fundedAccount("10");
    const { vault } = await createLaunch(creator, { closeIn: 600n });
    await vaultTx(a, vault, "deposit", { value: parseEther("0.5") });
    await warp(600n);
    await vaultTx(a, vault, "close");
    await expect(vaultTx(a, vault, "executeLaunch")).rejects.toThrow(/BelowMinRaise/);
  });

  it("lets the factory owner declare a failed launch, and anyone after the execute window", async () => {
    // The deployment hands the factory to its owner (on BSC a Safe, on the devnet the platform account).
    const owner = devnetAccounts().platform;
    const creator = await t.fundedAccount("10");
    const a = await t.fundedAccount("10");
    const first = await createLaunch(creator, { closeIn: 600n });
    const second = await createLaunch(creator, { closeIn: 600n });
    for (const v of [first.vault, second.vault])
      await vaultTx(a, v, "deposit", { value: parseEther("1.2") });
    await warp(600n);
    for (const v of [first.vault, second.vault]) await vaultTx(a, v, "close");
    await expect(vaultTx(a, first.vault, "enableRefund")).rejects.toThrow(/NotAllowed/);
    const byOwner = await vaultTx(owner, first.vault, "enableRefund");
    expect(
      parseEventLogs({
        abi: launchVaultAbi,
        logs: byOwner.receipt.logs,
        eventName: "RefundEnabled",
      })[0]?.args.reason,
    ).toBe(3);
    await expect(vaultTx(a, first.vault, "executeLaunch")).rejects.toThrow(/WrongState/);
    await warp(86_400n);
    const late = await vaultTx(a, second.vault, "enableRefund");
    expect(
      parseEventLogs({
        abi: launchVaultAbi,
        logs: late.receipt.logs,
        eventName: "RefundEnabled",
      })[0]?.args.reason,
    ).toBe(2);
    for (const v of [first.vault, second.vault]) {
      await vaultTx(a, v, "refund");
      expect(await bal(v)).toBe(0n);
    }
  });
});
