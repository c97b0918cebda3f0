import {
  type Address,
  type Chain,
  createPublicClient,
  defineChain,
  type Hex,
  http,
  type LocalAccount,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devnetAccounts } from "../../devnet/accounts.ts";
import { readDeploymentRecord } from "../../devnet/record.ts";
import type { Config } from "../../lib/config.ts";
import { ConfigError } from "../../lib/config.ts";
import type { Sql } from "../../lib/db/client.ts";
import type { Logger } from "../../lib/logger.ts";
import { resolveServices } from "../../lib/services.ts";
import {
  createLaunchpadApiClient,
  type LaunchpadApiClient,
} from "../../services/launchpad-api/client.ts";
import { createStewardClient, type StewardClient } from "../../services/steward/client.ts";

/** Safe 1.4.1 on BSC (CHAIN.md). */
const MAINNET_SAFE = {
  safeL2Singleton: "0x29fcb43b46531bca003ddc8fcb67ffe91900c762",
  safeProxyFactory: "0x4e1dcf7ad4e460cfd30791ccc4f9c8a4f820ec67",
  safeFallbackHandler: "0xfd0732dc9e303f09fcef3a7388ad10a83459ec99",
} as const;

/** Everything a saga step needs: chain, accounts, contracts, clients, settings. */
export type SagaContext = {
  sql: Sql;
  log: Logger;
  chain: Chain;
  client: PublicClient;
  relayer: LocalAccount;
  contracts: {
    tokenManager2: Address;
    identityRegistry: Address;
    serviceRegistry: Address;
    safeProxyFactory: Address;
    safeL2Singleton: Address;
    safeFallbackHandler: Address;
    dexFactory: Address;
    wbnb: Address;
  };
  pairInitCodeHash: Hex;
  /** Safe owners besides the agent wallet, and the threshold. */
  safeOwners: Address[];
  safeThreshold: number;
  /** First block to search for the service's own logs. */
  fromBlock: bigint;
  steward: StewardClient;
  launchpad: LaunchpadApiClient;
  trustedImageOrigins: string[];
  /** Base URL of our API: the agent registration file is served there. */
  apiUrl: string;
  /** Test mode only: kill the process once after these steps. */
  killPoints: string[];
  dataDir: string;
};

/**
 * Builds the saga context from the configuration: the devnet's record and role accounts
 * locally, configured addresses and RELAYER_PRIVATE_KEY on BSC.
 *
 * @example
 * const ctx = sagaContext({ config, sql, log });
 */
export function sagaContext(p: { config: Config; sql: Sql; log: Logger }): SagaContext {
  const { config } = p;
  const rpcUrl = config.rpcUrls[0] as string;
  const chain = defineChain({
    id: 56,
    name: config.devnet ? "devnet" : "bsc",
    nativeCurrency: { name: "BNB", symbol: "BNB", decimals: 18 },
    rpcUrls: { default: { http: config.rpcUrls } },
  });
  const client = createPublicClient({
    chain,
    transport: http(rpcUrl),
    pollingInterval: 200,
  }) as PublicClient;
  const services = resolveServices(config);
  let contracts: SagaContext["contracts"];
  let relayer: LocalAccount;
  let extraOwners: Address[];
  let pairInitCodeHash: Hex;
  let fromBlock = 0n;
  if (config.devnet) {
    const record = readDeploymentRecord(config.dataDir);
    if (!record) throw new Error(`no devnet deployment record in ${config.dataDir}`);
    const c = record.contracts;
    contracts = {
      tokenManager2: c.tokenManager2,
      identityRegistry: c.identityRegistry,
      serviceRegistry: c.serviceRegistry,
      safeProxyFactory: c.safeProxyFactory,
      safeL2Singleton: c.safeL2Singleton,
      safeFallbackHandler: c.safeFallbackHandler,
      dexFactory: c.uniswapV2Factory,
      wbnb: c.wbnb,
    };
    relayer = config.RELAYER_PRIVATE_KEY
      ? privateKeyToAccount(config.RELAYER_PRIVATE_KEY)
      : devnetAccounts().relayer;
    // Locally the platform account co-owns every treasury unless owners are configured.
    extraOwners = config.SAFE_OWNERS ?? [record.accounts.platform];
    pairInitCodeHash = record.pairInitCodeHash;
    fromBlock = BigInt(record.deployedAtBlock);
  } else {
    if (!config.RELAYER_PRIVATE_KEY)
      throw new ConfigError("RELAYER_PRIVATE_KEY", "required on BSC (it funds agent wallets)");
    if (!config.SERVICE_REGISTRY_ADDRESS)
      throw new ConfigError("SERVICE_REGISTRY_ADDRESS", "required on BSC");
    contracts = {
      tokenManager2: config.TOKEN_MANAGER_ADDRESS,
      identityRegistry: config.IDENTITY_REGISTRY_ADDRESS,
      serviceRegistry: config.SERVICE_REGISTRY_ADDRESS,
      ...MAINNET_SAFE,
      dexFactory: config.DEX_FACTORY_ADDRESS,
      wbnb: config.WBNB_ADDRESS,
    };
    relayer = privateKeyToAccount(config.RELAYER_PRIVATE_KEY);
    extraOwners = config.SAFE_OWNERS ?? [];
    pairInitCodeHash = config.PAIR_INIT_CODE_HASH;
    fromBlock = BigInt(config.BSC_START_BLOCK ?? 0);
  }
  if (config.SAFE_THRESHOLD > extraOwners.length + 1) {
    throw new ConfigError(
      "SAFE_THRESHOLD",
      `is more than the ${extraOwners.length + 1} treasury owners`,
    );
  }
  return {
    sql: p.sql,
    log: p.log,
    chain,
    client,
    relayer,
    contracts,
    pairInitCodeHash,
    safeOwners: extraOwners,
    safeThreshold: config.SAFE_THRESHOLD,
    fromBlock,
    steward: createStewardClient({
      url: services.steward.url,
      apiKey: services.steward.apiKey,
      timeoutMs: services.timeoutMs,
    }),
    launchpad: createLaunchpadApiClient({
      url: services.launchpadApi.url,
      timeoutMs: services.timeoutMs,
    }),
    trustedImageOrigins: services.trustedImageOrigins,
    apiUrl: config.apiUrl,
    killPoints:
      config.LAUNCHPAD_ENV === "test" && config.LAUNCHPAD_TEST_KILL_POINTS
        ? config.LAUNCHPAD_TEST_KILL_POINTS.split(",").map((s) => s.trim())
        : [],
    dataDir: config.dataDir,
  };
}
