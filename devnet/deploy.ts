import {
  type Abi,
  type Address,
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeDeployData,
  getContractAddress,
  type Hex,
  http,
  type PublicClient,
  parseEther,
  type TransactionReceipt,
  zeroAddress,
} from "viem";
import { loadArtifacts } from "../contracts/compile.ts";
import { deployServiceContracts } from "../contracts/deploy/deploy.ts";
import {
  DEFAULT_SALT,
  DEFAULT_TIERS,
  DEFAULT_TREASURY_SHARE_BPS,
  serviceSet,
  tierJson,
} from "../contracts/deploy/service-set.ts";
import {
  type ExternalContractName,
  loadExternalArtifact,
  pairInitCodeHash,
} from "../contracts/external.ts";
import { MULTICALL3_ADDRESS, readChainIdentity, viemChain } from "../lib/chain.ts";
import { devnetAccountAddresses, devnetAccounts } from "./accounts.ts";
import {
  DEVNET_CONTRACT_NAMES,
  type DeploymentRecord,
  type DeploymentTier,
  type DevnetContractName,
  readDeploymentRecord,
  writeDeploymentRecord,
} from "./record.ts";

/** Defaults of a devnet deployment (documented in contracts/README.md). */
export const DEVNET_DEFAULTS = {
  maxRaising: parseEther("18"),
  launchFee: parseEther("0.005"),
  tradingFeeRate: 100,
  treasuryShareBps: DEFAULT_TREASURY_SHARE_BPS,
  defaultBuyTaxBps: 200,
  defaultSellTaxBps: 200,
  /** 600 USD with the feed's 8 decimals. */
  initialBnbUsd: 600_00000000n,
  tiers: DEFAULT_TIERS,
} as const;

export type DeployDevnetParameters = {
  rpcUrl: string;
  /** The record goes to `<dataDir>/devnet/deployment.json`. */
  dataDir: string;
  /** Raise at which a curve token graduates; default 18 BNB. */
  maxRaisingWei?: bigint;
  log?: (msg: string) => void;
};

export type DeployDevnetReturnType = DeploymentRecord;

/**
 * Deploys the devnet contract set and writes the deployment record, or returns the existing record
 * unchanged when it belongs to this chain (same identity, see `readChainIdentity`) and every contract has code.
 * All transactions are signed with explicit nonces and sent at once, so the whole set lands in
 * one or two blocks even with interval mining.
 *
 * @example
 * const record = await deployDevnet({ rpcUrl: anvil.rpcUrl, dataDir: ".launchpad" });
 * console.log(record.contracts.tokenManager2);
 */
export async function deployDevnet(p: DeployDevnetParameters): Promise<DeployDevnetReturnType> {
  const log = p.log ?? (() => {});
  const publicClient = createPublicClient({ transport: http(p.rpcUrl) });
  const existing = readDeploymentRecord(p.dataDir);
  if (existing && (await isLive(publicClient, existing))) {
    log(`devnet contracts already deployed (block ${existing.deployedAtBlock})`);
    return existing;
  }
  const started = Date.now();
  const record = await deployAll(p, publicClient, log);
  writeDeploymentRecord(p.dataDir, record);
  log(`devnet contracts deployed in ${Date.now() - started} ms`);
  return record;
}

/** True when `record` describes the chain at its rpc: same identity and code at every address. */
export async function isLive(client: PublicClient, record: DeploymentRecord): Promise<boolean> {
  if ((await readChainIdentity(client)) !== record.chainIdentity) return false;
  const names = DEVNET_CONTRACT_NAMES.filter((n) => record.contracts[n]);
  if (names.length !== DEVNET_CONTRACT_NAMES.length) return false;
  const codes = await Promise.all(
    names.map((n) => client.getCode({ address: record.contracts[n] })),
  );
  return codes.every((code) => code !== undefined && code !== "0x");
}

/** The contracts a chain must already hold for the service to deploy its own on it (BSC's). */
export type OutsideContracts = Omit<
  DeploymentRecord["contracts"],
  "launchFactory" | "serviceRegistry"
>;

/**
 * Deploys only the devnet's stand-ins of the contracts BSC already has (four.meme with its own
 * TokenDeployer, PancakeSwap, Safe, ERC-8004, the feed, Multicall3), not the service's: what
 * `launchpad deploy` finds on BSC. The rehearsal of a deployment starts from these.
 */
export async function deployOutsideContracts(
  p: Omit<DeployDevnetParameters, "dataDir">,
): Promise<OutsideContracts> {
  const publicClient = createPublicClient({ transport: http(p.rpcUrl) });
  const {
    launchFactory: _f,
    serviceRegistry: _r,
    ...outside
  } = (await deployAll({ ...p, dataDir: "" }, publicClient, p.log ?? (() => {}), false)).contracts;
  return outside;
}

type PlannedTx = { label: string; data: Hex; to?: Address; gas: bigint; creates?: Address };

async function deployAll(
  p: DeployDevnetParameters,
  publicClient: PublicClient,
  log: (msg: string) => void,
  withService = true,
): Promise<DeploymentRecord> {
  const chainId = await publicClient.getChainId();
  const chain: Chain = viemChain({ id: chainId, name: "devnet", rpcUrls: [p.rpcUrl] });
  const accounts = devnetAccounts();
  const addresses = devnetAccountAddresses(accounts);
  const deployer = accounts.deployer;
  const wallet = createWalletClient({ account: deployer, chain, transport: http(p.rpcUrl) });
  const own = await loadArtifacts({ log });
  const initCodeHash = pairInitCodeHash();
  const maxRaising = p.maxRaisingWei ?? DEVNET_DEFAULTS.maxRaising;

  const firstNonce = await publicClient.getTransactionCount({
    address: deployer.address,
    blockTag: "pending",
  });
  const plan: PlannedTx[] = [];
  // Every address is known from the deployer's nonce before anything is sent, so constructors
  // can reference contracts deployed earlier in the same block.
  const next = () =>
    getContractAddress({ from: deployer.address, nonce: BigInt(firstNonce + plan.length) });
  const deploy = (label: string, abi: Abi, bytecode: Hex, args: unknown[] = []): Address => {
    const creates = next();
    const data = encodeDeployData({ abi, bytecode, args });
    // Deposit cost is 200 gas per runtime byte; creation code is a fair upper bound for it.
    plan.push({ label, data, gas: 600_000n + BigInt((data.length - 2) / 2) * 320n, creates });
    return creates;
  };
  const ext = (name: ExternalContractName, args: unknown[] = []) => {
    const a = loadExternalArtifact(name);
    return deploy(name, a.abi, a.bytecode, args);
  };
  const ours = (name: string, args: unknown[] = []) => {
    const a = own[name];
    if (!a) throw new Error(`contract ${name} missing from the compiled artifacts`);
    return deploy(name, a.abi, a.bytecode, args);
  };

  const uniswapV2Factory = ext("UniswapV2Factory", [deployer.address]);
  const wbnb = ext("WETH9");
  const uniswapV2Router = ext("UniswapV2Router02", [uniswapV2Factory, wbnb]);
  const safeL2Singleton = ext("SafeL2");
  const safeProxyFactory = ext("SafeProxyFactory");
  const safeFallbackHandler = ext("CompatibilityFallbackHandler");
  const multiSendCallOnly = ext("MultiSendCallOnly");
  // The service's own contracts go through the same deployment as on BSC (contracts/deploy/),
  // once the outside contracts they name exist; their CREATE2 addresses are known now, so the
  // devnet's four.meme shares the service's TokenDeployer.
  const serviceInputs = {
    salt: DEFAULT_SALT,
    router: uniswapV2Router,
    pairInitCodeHash: initCodeHash,
    safeProxyFactory,
    safeSingleton: safeL2Singleton,
    safeFallbackHandler,
  };
  const service = serviceSet(own, { ...serviceInputs, deployer: deployer.address });
  const tokenDeployer = withService ? service.tokenDeployer.address : ours("TokenDeployer");
  const identityRegistry = ours("IdentityRegistry");
  const bnbUsdFeed = ours("BnbUsdFeed", [
    "BNB / USD",
    accounts.feedUpdater.address,
    DEVNET_DEFAULTS.initialBnbUsd,
  ]);
  const tokenManager2 = ours("TokenManager2", [
    {
      signer: accounts.launchpadSigner.address,
      feeRecipient: accounts.platform.address,
      router: uniswapV2Router,
      pairInitCodeHash: initCodeHash,
      tokenDeployer,
      maxRaising,
      launchFee: DEVNET_DEFAULTS.launchFee,
      tradingFeeRate: BigInt(DEVNET_DEFAULTS.tradingFeeRate),
    },
  ]);

  // Multicall3 has no constructor and no immutables: its runtime code works at any address.
  const multicall = own.Multicall3;
  if (!multicall) throw new Error("contract Multicall3 missing from the compiled artifacts");
  const testClient = createTestClient({ mode: "anvil", transport: http(p.rpcUrl) });
  await testClient.setCode({ address: MULTICALL3_ADDRESS, bytecode: multicall.deployedBytecode });

  const fees = await publicClient.estimateFeesPerGas();
  const { gasLimit } = await publicClient.getBlock();
  // The plan goes out a block's worth at a time (by gas limit), each batch mined before the
  // next is sent: anvil drops transactions left over from a full block once the next block is
  // mined, so a plan larger than one block must never leave any behind.
  const receipts: TransactionReceipt[] = [];
  let sent = 0;
  while (sent < plan.length) {
    let room = (gasLimit * 9n) / 10n;
    const batch: Hex[] = [];
    for (; sent < plan.length; sent++) {
      const tx = plan[sent] as PlannedTx;
      if (batch.length > 0 && tx.gas > room) break;
      room -= tx.gas;
      batch.push(
        await wallet.sendTransaction({
          to: tx.to ?? null,
          data: tx.data,
          gas: tx.gas,
          nonce: firstNonce + sent,
          maxFeePerGas: fees.maxFeePerGas * 2n,
          maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
        }),
      );
    }
    receipts.push(
      ...(await Promise.all(
        batch.map((hash) =>
          publicClient.waitForTransactionReceipt({ hash, pollingInterval: 100, timeout: 60_000 }),
        ),
      )),
    );
  }
  log(`sent ${plan.length} deployment transactions`);
  receipts.forEach((r, i) => {
    const tx = plan[i];
    if (!tx) return;
    if (r.status !== "success") {
      throw new Error(`devnet deployment failed at ${tx.label}`, {
        cause: new Error(`transaction ${r.transactionHash} reverted`),
      });
    }
    if (tx.creates && r.contractAddress?.toLowerCase() !== tx.creates.toLowerCase()) {
      throw new Error(`devnet deployment of ${tx.label} landed at an unexpected address`, {
        cause: new Error(`expected ${tx.creates}, got ${r.contractAddress}`),
      });
    }
  });

  // The platform account stands in for the operator's Safe: the hand-over runs here as on BSC.
  const deployed = withService
    ? await deployServiceContracts({
        client: publicClient,
        wallet,
        inputs: serviceInputs,
        settings: {
          owner: accounts.platform.address,
          relayer: accounts.relayer.address,
          platform: accounts.platform.address,
          treasuryShareBps: DEVNET_DEFAULTS.treasuryShareBps,
          tiers: DEFAULT_TIERS,
        },
        expectedChainId: chainId,
        pendingTimeoutMs: 60_000,
      })
    : undefined;
  if (deployed)
    log(`sent ${deployed.sent.length} service contract transactions (contracts/deploy)`);
  const launchFactory = withService ? service.launchFactory.address : zeroAddress;
  const serviceRegistry = withService ? service.serviceRegistry.address : zeroAddress;

  // Every deployment transaction has a receipt, so block 1 exists.
  const identity = await readChainIdentity(publicClient);
  if (!identity) throw new Error("the devnet has no block 1 after its deployment");
  const lower = (a: Address) => a.toLowerCase() as Address;
  const contracts: Record<DevnetContractName, Address> = {
    tokenManager2: lower(tokenManager2),
    tokenDeployer: lower(tokenDeployer),
    identityRegistry: lower(identityRegistry),
    wbnb: lower(wbnb),
    uniswapV2Factory: lower(uniswapV2Factory),
    uniswapV2Router: lower(uniswapV2Router),
    safeL2Singleton: lower(safeL2Singleton),
    safeProxyFactory: lower(safeProxyFactory),
    safeFallbackHandler: lower(safeFallbackHandler),
    multiSendCallOnly: lower(multiSendCallOnly),
    launchFactory: lower(launchFactory),
    bnbUsdFeed: lower(bnbUsdFeed),
    multicall3: MULTICALL3_ADDRESS,
    serviceRegistry: lower(serviceRegistry),
  };
  const tiers: DeploymentTier[] = DEVNET_DEFAULTS.tiers.map(tierJson);
  return {
    chainId,
    rpcUrl: p.rpcUrl,
    chainIdentity: identity,
    deployedAtBlock: Math.min(...receipts.map((r) => Number(r.blockNumber))),
    contracts,
    pairInitCodeHash: initCodeHash,
    accounts: addresses,
    params: {
      maxRaising: maxRaising.toString(),
      launchFee: DEVNET_DEFAULTS.launchFee.toString(),
      tradingFeeRate: DEVNET_DEFAULTS.tradingFeeRate,
      treasuryShareBps: DEVNET_DEFAULTS.treasuryShareBps,
      defaultBuyTaxBps: DEVNET_DEFAULTS.defaultBuyTaxBps,
      defaultSellTaxBps: DEVNET_DEFAULTS.defaultSellTaxBps,
      initialBnbUsd: DEVNET_DEFAULTS.initialBnbUsd.toString(),
      tiers,
    },
  };
}
