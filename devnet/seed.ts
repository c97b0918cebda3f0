import {
  type Address,
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hash,
  http,
  type LocalAccount,
  parseEther,
  parseEventLogs,
  zeroAddress,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { identityRegistryDevnetAbi } from "../abis/IdentityRegistryDevnet.ts";
import { launchFactoryAbi } from "../abis/LaunchFactory.ts";
import { launchVaultAbi } from "../abis/LaunchVault.ts";
import { safeL2Abi } from "../abis/SafeL2.ts";
import { safeProxyFactoryAbi } from "../abis/SafeProxyFactory.ts";
import { serviceRegistryAbi } from "../abis/ServiceRegistry.ts";
import { tokenManager2Abi } from "../abis/TokenManager2.ts";
import { uniswapV2Router02Abi } from "../abis/UniswapV2Router02.ts";
import { devnetAccounts } from "./accounts.ts";
import { predictServiceToken, signCreateArgs } from "./create-args.ts";
import { isLive } from "./deploy.ts";
import { type DeploymentRecord, readDeploymentRecord } from "./record.ts";

export type SeedDevnetParameters = {
  rpcUrl: string;
  dataDir: string;
  /** Curve tokens to create (default 5; the first one graduates). */
  tokens?: number;
  /** Random curve buys and sells across the non-graduating tokens (default 100). */
  trades?: number;
  log?: (msg: string) => void;
};

export type SeedDevnetReturnType = {
  tokens: Address[];
  graduatedToken: Address;
  trades: number;
  failedTrades: number;
  launchedVault: Address;
  refundedVault: Address;
};

const TRADERS = 10;
/** Estimates go stale when parallel traders hit the same token; a fixed limit avoids out-of-gas. */
const TRADE_GAS = 400_000n;
const DEX_GAS = 500_000n;

/**
 * Creates sample activity on a deployed devnet through the public interfaces only: signed
 * createToken calls, curve trades from fresh wallets (funded by the deployer), one graduation
 * followed by DEX swaps, a deposit launch through to claims and another through to refunds.
 * Works with automine and with interval mining (independent wallets trade in parallel).
 *
 * @example
 * await seedDevnet({ rpcUrl: "http://127.0.0.1:8545", dataDir: ".launchpad", tokens: 5, trades: 100 });
 */
export async function seedDevnet(p: SeedDevnetParameters): Promise<SeedDevnetReturnType> {
  const log = p.log ?? (() => {});
  const record = readDeploymentRecord(p.dataDir);
  const transport = http(p.rpcUrl);
  const publicClient = createPublicClient({ transport, pollingInterval: 100 });
  if (!record || !(await isLive(publicClient, record))) {
    throw new Error("no live devnet deployment to seed", {
      cause: new Error(`deploy first (start the devnet); data dir ${p.dataDir}`),
    });
  }
  const chain: Chain = defineChain({
    id: record.chainId,
    name: "devnet",
    nativeCurrency: { name: "BNB", symbol: "BNB", decimals: 18 },
    rpcUrls: { default: { http: [p.rpcUrl] } },
  });
  const roles = devnetAccounts();
  const testClient = createTestClient({ mode: "anvil", chain, transport });
  const walletOf = (account: LocalAccount) => createWalletClient({ account, chain, transport });
  const mined = async (hash: Hash) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    if (receipt.status !== "success") throw new Error(`seed transaction ${hash} reverted`);
    return receipt;
  };
  const c = record.contracts;
  const tokenCount = Math.max(1, p.tokens ?? 5);
  const tradeCount = Math.max(0, p.trades ?? 100);
  const maxRaising = BigInt(record.params.maxRaising);
  const launchFee = BigInt(record.params.launchFee);
  let rnd = BigInt(Date.now()) % 2n ** 32n;
  const random = (n: bigint) => {
    rnd = (rnd * 6364136223846793005n + 1442695040888963407n) % 2n ** 64n;
    return (rnd >> 16n) % n;
  };

  // Fresh wallets, funded by the deployer with explicit nonces so it all lands in one block.
  const fresh = (count: number) =>
    Array.from({ length: count }, () => privateKeyToAccount(generatePrivateKey()));
  const creators = fresh(tokenCount);
  const traders = fresh(TRADERS);
  const whale = fresh(1)[0] as LocalAccount;
  const depositors = fresh(4);
  const whaleFunds = maxRaising * 2n + parseEther("5");
  const funding: [Address, bigint][] = [
    ...creators.map((a) => [a.address, parseEther("2")] as [Address, bigint]),
    ...traders.map((a) => [a.address, parseEther("20")] as [Address, bigint]),
    [whale.address, whaleFunds],
    ...depositors.map((a) => [a.address, parseEther("10")] as [Address, bigint]),
  ];
  const deployerWallet = walletOf(roles.deployer);
  const nonce = await publicClient.getTransactionCount({
    address: roles.deployer.address,
    blockTag: "pending",
  });
  const fundHashes = await Promise.all(
    funding.map(([to, value], i) =>
      deployerWallet.sendTransaction({ to, value, nonce: nonce + i, gas: 21_000n }),
    ),
  );
  await Promise.all(fundHashes.map(mined));
  log(`funded ${funding.length} fresh wallets`);

  // Tokens: each creator gets a treasury Safe and an ERC-8004 identity; the relayer registers
  // the predicted token in the ServiceRegistry (as the launch saga does), then the creator
  // creates it with signed args.
  const prepared = await Promise.all(
    creators.map(async (creator, i) => {
      const w = walletOf(creator);
      const setup = encodeFunctionData({
        abi: safeL2Abi,
        functionName: "setup",
        args: [
          [creator.address],
          1n,
          zeroAddress,
          "0x",
          c.safeFallbackHandler,
          zeroAddress,
          0n,
          zeroAddress,
        ],
      });
      const safeReceipt = await mined(
        await w.writeContract({
          address: c.safeProxyFactory,
          abi: safeProxyFactoryAbi,
          functionName: "createProxyWithNonce",
          args: [c.safeL2Singleton, setup, BigInt(i)],
        }),
      );
      const [proxy] = parseEventLogs({
        abi: safeProxyFactoryAbi,
        logs: safeReceipt.logs,
        eventName: "ProxyCreation",
      });
      const treasury = proxy?.args.proxy ?? creator.address;
      const idReceipt = await mined(
        await w.writeContract({
          address: c.identityRegistry,
          abi: identityRegistryDevnetAbi,
          functionName: "register",
          args: [`https://agents.example/seed-${i + 1}.json`],
        }),
      );
      const [registered] = parseEventLogs({
        abi: identityRegistryDevnetAbi,
        logs: idReceipt.logs,
        eventName: "Registered",
      });
      const createArgs = {
        name: `Seed Agent ${i + 1}`,
        symbol: `SEED${i + 1}`,
        requestId: BigInt(Date.now()) * 1000n + BigInt(i),
        creator: creator.address,
        treasury,
      };
      const { token, pair } = await predictServiceToken({
        client: publicClient,
        record,
        args: createArgs,
      });
      return { creator, createArgs, token, pair, agentId: registered?.args.agentId ?? 0n };
    }),
  );
  const relayerWallet = walletOf(roles.relayer);
  const relayerNonce = await publicClient.getTransactionCount({
    address: roles.relayer.address,
    blockTag: "pending",
  });
  const registrations = await Promise.all(
    prepared.map((t, i) =>
      relayerWallet.writeContract({
        address: c.serviceRegistry,
        abi: serviceRegistryAbi,
        functionName: "registerToken",
        args: [t.token, t.pair, t.creator.address, t.createArgs.treasury, t.agentId],
        nonce: relayerNonce + i,
        gas: 200_000n,
      }),
    ),
  );
  await Promise.all(registrations.map(mined));
  const tokens = await Promise.all(
    prepared.map(async ({ creator, createArgs, token }) => {
      const { args, signature } = await signCreateArgs({
        ...createArgs,
        signer: roles.launchpadSigner,
        chainId: record.chainId,
        tokenManager: c.tokenManager2,
      });
      const receipt = await mined(
        await walletOf(creator).writeContract({
          address: c.tokenManager2,
          abi: tokenManager2Abi,
          functionName: "createToken",
          args: [args, signature],
          value: launchFee,
        }),
      );
      const [ev] = parseEventLogs({
        abi: tokenManager2Abi,
        logs: receipt.logs,
        eventName: "TokenCreate",
      });
      if (!ev) throw new Error("createToken emitted no TokenCreate");
      if (ev.args.token.toLowerCase() !== token) {
        throw new Error(`token created at ${ev.args.token}, registered at ${token}`);
      }
      return getAddress(ev.args.token);
    }),
  );
  log(`created ${tokens.length} tokens`);

  // Curve trades: traders run in parallel, each one's trades in sequence.
  const tradable = tokens.length > 1 ? tokens.slice(1) : tokens;
  let failedTrades = 0;
  const perTrader = Array.from(
    { length: TRADERS },
    (_, i) => Math.floor(tradeCount / TRADERS) + (i < tradeCount % TRADERS ? 1 : 0),
  );
  await Promise.all(
    traders.map(async (trader, i) => {
      const w = walletOf(trader);
      const approved = new Set<Address>();
      for (let k = 0; k < (perTrader[i] ?? 0); k++) {
        const token = tradable[Number(random(BigInt(tradable.length)))] as Address;
        try {
          const held = await publicClient.readContract({
            address: token,
            abi: erc20Abi,
            functionName: "balanceOf",
            args: [trader.address],
          });
          const info = await publicClient.readContract({
            address: c.tokenManager2,
            abi: tokenManager2Abi,
            functionName: "_tokenInfos",
            args: [token],
          });
          if (info[12] !== 0n) continue;
          if (held > 0n && random(3n) === 0n) {
            if (!approved.has(token)) {
              await mined(
                await w.writeContract({
                  address: token,
                  abi: erc20Abi,
                  functionName: "approve",
                  args: [c.tokenManager2, 2n ** 255n],
                }),
              );
              approved.add(token);
            }
            const part = held / (1n + random(4n));
            const amount = part - (part % 10n ** 9n);
            if (amount === 0n) continue;
            await mined(
              await w.writeContract({
                address: c.tokenManager2,
                abi: tokenManager2Abi,
                functionName: "sellToken",
                args: [token, amount],
                gas: TRADE_GAS,
              }),
            );
          } else {
            // Stay well below graduation so only the chosen token graduates.
            const room = (maxRaising - info[8]) / 8n;
            const funds = (random(parseEther("0.3")) + parseEther("0.01")) % (room + 1n);
            if (funds < 10n ** 12n) continue;
            await mined(
              await w.writeContract({
                address: c.tokenManager2,
                abi: tokenManager2Abi,
                functionName: "buyTokenAMAP",
                args: [token, funds, 0n],
                value: funds,
                gas: TRADE_GAS,
              }),
            );
          }
        } catch (error) {
          // Parallel traders can race a token's state; a refused trade is fine for sample data.
          failedTrades++;
          log(`trade refused: ${(error as Error).message.split("\n")[0]}`);
        }
      }
    }),
  );
  log(`made ${tradeCount - failedTrades} curve trades (${failedTrades} refused)`);

  // Graduation, then DEX swaps on the pair through the router.
  const graduatedToken = tokens[0] as Address;
  const whaleWallet = walletOf(whale);
  await mined(
    await whaleWallet.writeContract({
      address: c.tokenManager2,
      abi: tokenManager2Abi,
      functionName: "buyTokenAMAP",
      args: [graduatedToken, maxRaising * 2n, 0n],
      value: maxRaising * 2n,
    }),
  );
  const deadline = (await publicClient.getBlock()).timestamp + 3600n;
  await mined(
    await whaleWallet.writeContract({
      address: c.uniswapV2Router,
      abi: uniswapV2Router02Abi,
      functionName: "swapExactETHForTokens",
      args: [0n, [c.wbnb, graduatedToken], whale.address, deadline],
      value: parseEther("0.5"),
      // The pair's first price-accumulator writes depend on the block timestamp, which an
      // estimate made in the graduation's block does not see.
      gas: DEX_GAS,
    }),
  );
  const whaleTokens = await publicClient.readContract({
    address: graduatedToken,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [whale.address],
  });
  await mined(
    await whaleWallet.writeContract({
      address: graduatedToken,
      abi: erc20Abi,
      functionName: "approve",
      args: [c.uniswapV2Router, whaleTokens],
    }),
  );
  await mined(
    await whaleWallet.writeContract({
      address: c.uniswapV2Router,
      abi: uniswapV2Router02Abi,
      functionName: "swapExactTokensForETHSupportingFeeOnTransferTokens",
      args: [whaleTokens / 10n, 0n, [graduatedToken, c.wbnb], whale.address, deadline],
      gas: DEX_GAS,
    }),
  );
  log(`graduated ${graduatedToken} and swapped on its DEX pair`);

  // Deposit launches: one to claims, one to refunds.
  const tier = record.params.tiers[0];
  if (!tier) throw new Error("the deployment record lists no deposit tier");
  const minRaise = BigInt(tier.minRaise);
  const maxPerWallet = BigInt(tier.maxPerWallet);
  const creator = creators[0] as LocalAccount;
  const createLaunch = async (symbol: string) => {
    const close = (await publicClient.getBlock()).timestamp + 600n;
    const receipt = await mined(
      await walletOf(creator).writeContract({
        address: c.launchFactory,
        abi: launchFactoryAbi,
        functionName: "createLaunch",
        args: [
          tier.id,
          `Deposit ${symbol}`,
          symbol,
          JSON.stringify({ description: "seeded deposit launch" }),
          close,
          200,
          200,
          creator.address,
        ],
      }),
    );
    const [ev] = parseEventLogs({
      abi: launchFactoryAbi,
      logs: receipt.logs,
      eventName: "LaunchCreated",
    });
    if (!ev) throw new Error("createLaunch emitted no LaunchCreated");
    return ev.args.vault;
  };
  const launchedVault = await createLaunch("DEPA");
  const refundedVault = await createLaunch("DEPB");
  // Enough to meet the minimum across the depositors (capped per wallet), and too little for B.
  const each = minRaise / BigInt(depositors.length) + parseEther("0.1");
  const perDepositor = each > maxPerWallet ? maxPerWallet : each;
  const vaultCall = (
    who: LocalAccount,
    vault: Address,
    functionName: "deposit" | "close" | "executeLaunch" | "claim" | "enableRefund" | "refund",
    value?: bigint,
  ) =>
    walletOf(who)
      .writeContract({
        address: vault,
        abi: launchVaultAbi,
        functionName,
        value,
      } as never)
      .then(mined);
  await Promise.all(depositors.map((d) => vaultCall(d, launchedVault, "deposit", perDepositor)));
  await vaultCall(depositors[0] as LocalAccount, refundedVault, "deposit", minRaise / 4n);
  await testClient.increaseTime({ seconds: 601 });
  await testClient.mine({ blocks: 1 });
  await vaultCall(creator, launchedVault, "close");
  await vaultCall(creator, launchedVault, "executeLaunch");
  await vaultCall(depositors[0] as LocalAccount, launchedVault, "claim");
  await mined(
    await walletOf(creator).writeContract({
      address: launchedVault,
      abi: launchVaultAbi,
      functionName: "distribute",
      args: [0n, BigInt(depositors.length)],
    }),
  );
  await vaultCall(creator, refundedVault, "enableRefund");
  await vaultCall(depositors[0] as LocalAccount, refundedVault, "refund");
  log(`deposit launch ${launchedVault} launched and claimed; ${refundedVault} refunded`);

  return {
    tokens,
    graduatedToken,
    trades: tradeCount - failedTrades,
    failedTrades,
    launchedVault,
    refundedVault,
  };
}

/** Re-exported for callers that want the record the seed ran against. */
export type { DeploymentRecord };
