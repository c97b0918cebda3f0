import { type Address, erc20Abi, zeroAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serviceRegistryAbi } from "../../abis/ServiceRegistry.ts";
import { uniswapV2FactoryAbi } from "../../abis/UniswapV2Factory.ts";
import { startTestChain, type TestChain } from "../../contracts/test/helpers.ts";
import { devnetAccounts } from "../../devnet/accounts.ts";
import { seedDevnet } from "../../devnet/seed.ts";
import { pairAddress } from "../../lib/pair.ts";

// The ServiceRegistry and the CREATE2 pair prediction the launch saga relies on.
let t: TestChain;
beforeAll(async () => {
  t = await startTestChain();
}, 60_000);
afterAll(async () => t?.stop());

describe("ServiceRegistry", () => {
  it("seed registers every token after creating it, and pairAddress() equals getPair after graduation", async () => {
    const seeded = await seedDevnet({ rpcUrl: t.anvil.rpcUrl, dataDir: t.dataDir, trades: 10 });
    const c = t.record.contracts;
    for (const token of seeded.tokens) {
      const entry = await t.publicClient.readContract({
        address: c.serviceRegistry,
        abi: serviceRegistryAbi,
        functionName: "entries",
        args: [token],
      });
      expect(entry[0].toLowerCase()).toBe(
        pairAddress({
          factory: c.uniswapV2Factory,
          token,
          wbnb: c.wbnb,
          initCodeHash: t.record.pairInitCodeHash,
        }),
      );
    }
    const pair = await t.publicClient.readContract({
      address: c.uniswapV2Factory,
      abi: uniswapV2FactoryAbi,
      functionName: "getPair",
      args: [seeded.graduatedToken, c.wbnb],
    });
    expect(pair).not.toBe(zeroAddress);
    expect(pair.toLowerCase()).toBe(
      pairAddress({
        factory: c.uniswapV2Factory,
        token: seeded.graduatedToken,
        wbnb: c.wbnb,
        initCodeHash: t.record.pairInitCodeHash,
      }),
    );
    // The pair holds the graduated token's liquidity, so it is the real one.
    const held = await t.publicClient.readContract({
      address: seeded.graduatedToken,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [pair],
    });
    expect(held).toBeGreaterThan(0n);
  }, 60_000);

  it("accepts only the registrar, only a token that exists, and refuses a duplicate", async () => {
    const c = t.record.contracts;
    const { relayer, deployer } = devnetAccounts();
    // Any contract stands in for a created token: the registry checks that code is there.
    const token = c.wbnb;
    const head = await t.publicClient.getBlockNumber({ cacheTime: 0 });
    const args = [token, token, deployer.address, deployer.address, 1n, head] as const;
    const register = (from: typeof relayer, a: readonly unknown[]) =>
      t.wallet(from).writeContract({
        address: c.serviceRegistry,
        abi: serviceRegistryAbi,
        functionName: "registerToken",
        args: a as typeof args,
      });
    await expect(register(deployer, args)).rejects.toThrow(/NotRegistrar/);
    const nothing = "0x00000000000000000000000000000000000000aa" as Address;
    await expect(register(relayer, [nothing, ...args.slice(1)])).rejects.toThrow(/NotCreatedYet/);
    await expect(register(relayer, [...args.slice(0, 5), head + 100n])).rejects.toThrow(
      /NotCreatedYet/,
    );
    await t.mined(await register(relayer, args));
    const entry = await t.publicClient.readContract({
      address: c.serviceRegistry,
      abi: serviceRegistryAbi,
      functionName: "entries",
      args: [token],
    });
    expect(entry[4]).toBe(head);
    await expect(register(relayer, args)).rejects.toThrow(/AlreadyRegistered/);
  }, 30_000);
});
