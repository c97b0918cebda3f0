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
  it("seed registers every token before creating it, and pairAddress() equals getPair after graduation", async () => {
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

  it("accepts only the registrar and refuses a duplicate", async () => {
    const c = t.record.contracts;
    const { relayer, deployer } = devnetAccounts();
    const token = "0x00000000000000000000000000000000000000aa" as Address;
    const args = [token, token, deployer.address, deployer.address, 1n] as const;
    await expect(
      t.wallet(deployer).writeContract({
        address: c.serviceRegistry,
        abi: serviceRegistryAbi,
        functionName: "registerToken",
        args,
      }),
    ).rejects.toThrow(/NotRegistrar/);
    await t.mined(
      await t.wallet(relayer).writeContract({
        address: c.serviceRegistry,
        abi: serviceRegistryAbi,
        functionName: "registerToken",
        args,
      }),
    );
    await expect(
      t.wallet(relayer).writeContract({
        address: c.serviceRegistry,
        abi: serviceRegistryAbi,
        functionName: "registerToken",
        args,
      }),
    ).rejects.toThrow(/AlreadyRegistered/);
  }, 30_000);
});
