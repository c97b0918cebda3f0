import {
  type Address,
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  erc20Abi,
  type Hash,
  http,
  keccak256,
  type LocalAccount,
  parseEther,
  parseEventLogs,
  toHex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { bnbUsdFeedAbi } from "../../abis/BnbUsdFeed.ts";
import { identityRegistryDevnetAbi } from "../../abis/IdentityRegistryDevnet.ts";
import { launchFactoryAbi } from "../../abis/LaunchFactory.ts";
import { launchVaultAbi } from "../../abis/LaunchVault.ts";
import { serviceRegistryAbi } from "../../abis/ServiceRegistry.ts";
import { tokenManager2Abi } from "../../abis/TokenManager2.ts";
import { uniswapV2Router02Abi } from "../../abis/UniswapV2Router02.ts";
import { devnetAccounts } from "../../devnet/accounts.ts";
import { predictServiceToken, signCreateArgs } from "../../devnet/create-args.ts";
import type { DeploymentRecord } from "../../devnet/record.ts";

export type RunScenarioParameters = {
  rpcUrl: string;
  record: DeploymentRecord;
  /** Seeds the PRNG and the wallets' keys: the same seed gives the same transactions. */
  seed?: number;
  /** Service tokens (default 3; the first graduates). */
  tokens?: number;
  /** Random curve trades (default 300). */
  trades?: number;
  /** DEX swaps after the graduation (default 12). */
  dexSwaps?: number;
  log?: (msg: string) => void;
};

export type RunScenarioReturnType = {
  tokens: Address[];
  graduated: Address;
  /** Created on TokenManager2 without registration: must leave no row. */
  unregistered: Address;
  launchedVault: Address;
  refundedVault: Address;
};

/** Deterministic 64-bit LCG; `next(n)` is uniform enough in [0, n). */
export function prng(seed: number) {
  let s = BigInt(seed) + 0x9e3779b97f4a7c15n;
  return (n: bigint) => {
    s = (s * 6364136223846793005n + 1442695040888963407n) % 2n ** 64n;
    return (s >> 16n) % n;
  };
}

/**
 * A deterministic devnet scenario for the indexer (automine): registered tokens created through
 * the service, random curve trades from several wallets, wallet-to-wallet transfers (some into
 * agent wallets), a graduation and DEX swaps, one deposit launch to claims and one to refunds,
 * a BNB/USD update, and one token created without registration.
 *
 * @example
 * const s = await runScenario({ rpcUrl, record, seed: 1, trades: 300 });
 */
export async function runScenario(p: RunScenarioParameters): Promise<RunScenarioReturnType> {
  const log = p.log ?? (() => {});
  const record = p.record;
  const c = record.contracts;
  const seed = p.seed ?? 1;
  const random = prng(seed);
  const chain: Chain = defineChain({
    id: record.chainId,
    name: "devnet",
    nativeCurrency: { name: "BNB", symbol: "BNB", decimals: 18 },
    rpcUrls: { default: { http: [p.rpcUrl] } },
  });
  const transport = http(p.rpcUrl);
  const client = createPublicClient({ chain, transport, pollingInterval: 20 });
  const test = createTestClient({ chain, mode: "anvil", transport });
  const roles = devnetAccounts();
  const wallet = (a: LocalAccount) => createWalletClient({ account: a, chain, transport });
  const mined = async (hash: Hash) => {
    const r = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    if (r.status !== "success") throw new Error(`scenario tx ${hash} reverted`);
    return r;
  };
  // biome-ignore lint/suspicious/noExplicitAny: one call shape for every contract write
  const send = async (a: LocalAccount, req: any) =>
    mined(await wallet(a).writeContract({ gas: 600_000n, ...req }));
  const account = (label: string) =>
    privateKeyToAccount(keccak256(toHex(`indexer-scenario:${seed}:${label}`)));
  const tokenCount = p.tokens ?? 3;
  const creators = Array.from({ length: tokenCount + 1 }, (_, i) => account(`creator${i}`));
  const traders = Array.from({ length: 6 }, (_, i) => account(`trader${i}`));
  const depositors = Array.from({ length: 4 }, (_, i) => account(`depositor${i}`));
  for (const a of [...creators, ...traders, ...depositors]) {
    await test.setBalance({ address: a.address, value: parseEther("1000") });
  }
  const launchFee = BigInt(record.params.launchFee);
  const maxRaising = BigInt(record.params.maxRaising);

  const create = async (creator: LocalAccount, i: number, register: boolean) => {
    const id = await send(creator, {
      address: c.identityRegistry,
      abi: identityRegistryDevnetAbi,
      functionName: "register",
      args: [`https://agents.example/${seed}/${i}.json`],
    });
    const [reg] = parseEventLogs({
      abi: identityRegistryDevnetAbi,
      logs: id.logs,
      eventName: "Registered",
    });
    const args = {
      name: `Scenario ${i}`,
      symbol: `SC${i}`,
      requestId: BigInt(seed) * 1000n + BigInt(i),
      creator: creator.address,
      treasury: account(`treasury${i}`).address,
    };
    const { token, pair } = await predictServiceToken({ client, record, args });
    if (register) {
      await send(roles.relayer, {
        address: c.serviceRegistry,
        abi: serviceRegistryAbi,
        functionName: "registerToken",
        args: [token, pair, creator.address, args.treasury, reg?.args.agentId ?? 0n],
      });
    }
    const signed = await signCreateArgs({
      ...args,
      signer: roles.launchpadSigner,
      chainId: record.chainId,
      tokenManager: c.tokenManager2,
    });
    await send(creator, {
      address: c.tokenManager2,
      abi: tokenManager2Abi,
      functionName: "createToken",
      args: [signed.args, signed.signature],
      value: launchFee,
      gas: 8_000_000n,
    });
    for (const t of traders) {
      await send(t, {
        address: token,
        abi: erc20Abi,
        functionName: "approve",
        args: [c.tokenManager2, 2n ** 255n],
      });
    }
    return token;
  };
  const tokens: Address[] = [];
  for (let i = 0; i < tokenCount; i++)
    tokens.push(await create(creators[i] as LocalAccount, i, true));
  const unregistered = await create(creators[tokenCount] as LocalAccount, tokenCount, false);
  log(`created ${tokens.length} service tokens and one unregistered token`);

  const balanceOf = (token: Address, who: Address) =>
    client.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [who] });
  const curveTokens = [...tokens.slice(1), unregistered];
  const trades = p.trades ?? 300;
  for (let k = 0; k < trades; k++) {
    const trader = traders[Number(random(BigInt(traders.length)))] as LocalAccount;
    const token = curveTokens[Number(random(BigInt(curveTokens.length)))] as Address;
    const held = await balanceOf(token, trader.address);
    const roll = random(10n);
    if (roll === 0n && held > 0n) {
      // Wallet to wallet, now and then into a creator's agent wallet.
      const to = (random(2n) === 0n ? creators[0] : traders[Number(random(6n))]) as LocalAccount;
      await send(trader, {
        address: token,
        abi: erc20Abi,
        functionName: "transfer",
        args: [to.address, held / 3n],
      });
    } else if (roll < 4n && held > 10n ** 9n) {
      const part = held / (1n + random(3n));
      await send(trader, {
        address: c.tokenManager2,
        abi: tokenManager2Abi,
        functionName: "sellToken",
        args: [token, part - (part % 10n ** 9n)],
      });
    } else {
      const funds = parseEther("0.01") + random(parseEther("0.4"));
      await send(trader, {
        address: c.tokenManager2,
        abi: tokenManager2Abi,
        functionName: "buyTokenAMAP",
        args: [token, funds, 0n],
        value: funds,
      });
    }
  }
  log(`made ${trades} random curve trades and transfers`);

  const graduated = tokens[0] as Address;
  await send(traders[0] as LocalAccount, {
    address: c.tokenManager2,
    abi: tokenManager2Abi,
    functionName: "buyTokenAMAP",
    args: [graduated, maxRaising * 2n, 0n],
    value: maxRaising * 2n,
    gas: 8_000_000n,
  });
  await dexSwaps(graduated, p.dexSwaps ?? 12);

  async function dexSwaps(token: Address, n: number) {
    const deadline = (await client.getBlock()).timestamp + 86_400n * 30n;
    for (let k = 0; k < n; k++) {
      const t = traders[k % traders.length] as LocalAccount;
      const held = await balanceOf(token, t.address);
      if (k % 3 === 2 && held > 0n) {
        await send(t, {
          address: token,
          abi: erc20Abi,
          functionName: "approve",
          args: [c.uniswapV2Router, held],
        });
        await send(t, {
          address: c.uniswapV2Router,
          abi: uniswapV2Router02Abi,
          functionName: "swapExactTokensForETHSupportingFeeOnTransferTokens",
          args: [held / 2n, 0n, [token, c.wbnb], t.address, deadline],
        });
      } else {
        await send(t, {
          address: c.uniswapV2Router,
          abi: uniswapV2Router02Abi,
          functionName: "swapExactETHForTokensSupportingFeeOnTransferTokens",
          args: [0n, [c.wbnb, token], t.address, deadline],
          value: parseEther("0.05") + random(parseEther("0.5")),
        });
      }
    }
  }
  log(`graduated ${graduated} and made DEX swaps`);

  const tier = record.params.tiers[0];
  if (!tier) throw new Error("no deposit tier");
  const creator = creators[0] as LocalAccount;
  const createLaunch = async (symbol: string) => {
    const close = (await client.getBlock()).timestamp + 600n;
    const r = await send(creator, {
      address: c.launchFactory,
      abi: launchFactoryAbi,
      functionName: "createLaunch",
      args: [tier.id, `Deposit ${symbol}`, symbol, "{}", close, 200, 200, creator.address],
      gas: 8_000_000n,
    });
    const [ev] = parseEventLogs({
      abi: launchFactoryAbi,
      logs: r.logs,
      eventName: "LaunchCreated",
    });
    if (!ev) throw new Error("no LaunchCreated");
    return ev.args.vault;
  };
  const vault = (who: LocalAccount, address: Address, functionName: string, more = {}) =>
    send(who, { address, abi: launchVaultAbi, functionName, gas: 8_000_000n, ...more });
  const launchedVault = await createLaunch("DEPA");
  const refundedVault = await createLaunch("DEPB");
  for (const d of depositors) {
    await vault(d, launchedVault, "deposit", {
      value: parseEther("0.5") + random(parseEther("2")),
    });
  }
  await vault(depositors[1] as LocalAccount, launchedVault, "withdraw", {
    args: [parseEther("0.1")],
  });
  await vault(depositors[0] as LocalAccount, refundedVault, "deposit", {
    value: parseEther("0.2"),
  });
  await vault(depositors[2] as LocalAccount, refundedVault, "deposit", {
    value: parseEther("0.3"),
  });
  await test.increaseTime({ seconds: 601 });
  await test.mine({ blocks: 1 });
  await vault(creator, launchedVault, "close");
  await vault(creator, launchedVault, "executeLaunch");
  await vault(depositors[0] as LocalAccount, launchedVault, "claim");
  await vault(creator, launchedVault, "distribute", { args: [0n, 2n] });
  await vault(creator, refundedVault, "enableRefund");
  await vault(depositors[0] as LocalAccount, refundedVault, "refund");
  log("deposit launches launched and refunded");
  await send(roles.feedUpdater, {
    address: c.bnbUsdFeed,
    abi: bnbUsdFeedAbi,
    functionName: "updateAnswer",
    args: [612_50000000n],
  });
  return { tokens, graduated, unregistered, launchedVault, refundedVault };
}
