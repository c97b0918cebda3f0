import { join } from "node:path";
import type { Address, Hex } from "viem";
import type { TierJson } from "../contracts/deploy/service-set.ts";
import { readJsonRecord, writeJsonAtomic } from "../lib/json-file.ts";

/** Stable names of the devnet contracts (documented in contracts/README.md). */
export const DEVNET_CONTRACT_NAMES = [
  "tokenManager2",
  "tokenDeployer",
  "identityRegistry",
  "wbnb",
  "uniswapV2Factory",
  "uniswapV2Router",
  "safeL2Singleton",
  "safeProxyFactory",
  "safeFallbackHandler",
  "multiSendCallOnly",
  "launchFactory",
  "bnbUsdFeed",
  "multicall3",
  "serviceRegistry",
] as const;

export type DevnetContractName = (typeof DEVNET_CONTRACT_NAMES)[number];

/** What `<dataDir>/devnet/deployment.json` holds. Addresses are lowercase; amounts are wei strings. */
export type DeploymentRecord = {
  chainId: number;
  rpcUrl: string;
  /** Hash of block 1: names this chain (see `readChainIdentity` in lib/chain.ts). */
  chainIdentity: Hex;
  /** First block that holds one of these contracts (indexers start here). */
  deployedAtBlock: number;
  contracts: Record<DevnetContractName, Address>;
  /** keccak256 of the UniswapV2Pair creation code the router hardcodes. */
  pairInitCodeHash: Hex;
  accounts: {
    deployer: Address;
    relayer: Address;
    launchpadSigner: Address;
    platform: Address;
    feedUpdater: Address;
    /** Accounts 5..9 of the mnemonic: external clients and tests only. */
    external: Address[];
  };
  params: {
    /** BNB wei a token raises on the curve before it graduates. */
    maxRaising: string;
    /** BNB wei paid to createToken. */
    launchFee: string;
    /** Curve fee in basis points. */
    tradingFeeRate: number;
    /** Share of each token tax paid to the treasury, in basis points (rest: platform). */
    treasuryShareBps: number;
    defaultBuyTaxBps: number;
    defaultSellTaxBps: number;
    /** BNB/USD answer the feed starts with (8 decimals). */
    initialBnbUsd: string;
    /** Deposit-launch tiers as configured on the factory (id -> terms, wei strings). */
    tiers: DeploymentTier[];
  };
};

/** A deposit-launch tier as the record keeps it (the deploy command's own record does the same). */
export type DeploymentTier = TierJson;

/** Path of the deployment record inside a data directory. */
export function deploymentRecordPath(dataDir: string): string {
  return join(dataDir, "devnet", "deployment.json");
}

/**
 * Reads the deployment record, or returns `undefined` when there is none.
 *
 * @example
 * const record = readDeploymentRecord(".launchpad");
 * if (record) console.log(record.contracts.tokenManager2);
 */
export function readDeploymentRecord(dataDir: string): DeploymentRecord | undefined {
  return readJsonRecord<DeploymentRecord>(deploymentRecordPath(dataDir), "deployment record");
}

/** Writes the deployment record atomically (temp file + rename). */
export function writeDeploymentRecord(dataDir: string, record: DeploymentRecord): void {
  writeJsonAtomic(deploymentRecordPath(dataDir), record, { pretty: true });
}
