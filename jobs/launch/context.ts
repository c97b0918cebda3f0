import {
  type Address,
  type Chain,
  createPublicClient,
  type Hex,
  http,
  type LocalAccount,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { resolveChain, viemChain } from "../../lib/chain.ts";
import type { Config } from "../../lib/config.ts";
import { ConfigError } from "../../lib/config.ts";
import type { Sql } from "../../lib/db/client.ts";
import { resolveEndpoints } from "../../lib/endpoints.ts";
import type { Logger } from "../../lib/logger.ts";
import { secretsKey } from "../../lib/secrets-key.ts";
import type { TokenTerms } from "../../lib/token-terms.ts";
import { createFourMemeClient, type FourMemeClient } from "../../services/four-meme/client.ts";
import { STEWARD_LIMITS } from "../../services/limits.ts";
import { createStewardClient, type StewardClient } from "../../services/steward/client.ts";
import { type Announcer, announcerFromConfig } from "./announce.ts";

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
  launchpad: FourMemeClient;
  /** Seals the four.meme logins kept per wallet (app.fourmeme_sessions). */
  sessionKey: Buffer;
  trustedImageOrigins: string[];
  /** The tax terms every token is created with (TOKEN_TAX_*; the recipient is the treasury). */
  tokenTerms: TokenTerms;
  /** Base URL of our API: the agent registration file is served there. */
  apiUrl: string;
  /** Test mode only: kill the process once after these steps. */
  killPoints: string[];
  dataDir: string;
  /** Posts the patron's joint announcement after a launch; absent: none is posted. */
  announcer?: Announcer;
};

/**
 * Builds the saga context from the configuration: contract addresses from the chain module
 * (lib/chain.ts; on the devnet the CLI hands in the deployment record as configuration) and
 * the relayer from RELAYER_PRIVATE_KEY.
 *
 * @example
 * const ctx = sagaContext({ config, sql, log });
 */
export function sagaContext(p: { config: Config; sql: Sql; log: Logger }): SagaContext {
  const { config } = p;
  const settings = resolveChain(config);
  const rpcUrl = config.rpcUrls[0] as string;
  const chain = viemChain({ rpcUrls: config.rpcUrls, name: config.devnet ? "devnet" : "bsc" });
  const client = createPublicClient({
    chain,
    transport: http(rpcUrl),
    pollingInterval: 200,
  }) as PublicClient;
  const services = resolveEndpoints(config);
  if (!config.RELAYER_PRIVATE_KEY)
    throw new ConfigError("RELAYER_PRIVATE_KEY", "required on BSC (it funds agent wallets)");
  if (!settings.contracts.serviceRegistry)
    throw new ConfigError("SERVICE_REGISTRY_ADDRESS", "required on BSC");
  const c = settings.contracts;
  const contracts: SagaContext["contracts"] = {
    tokenManager2: c.tokenManager2,
    identityRegistry: c.identityRegistry,
    serviceRegistry: settings.contracts.serviceRegistry,
    safeProxyFactory: c.safeProxyFactory,
    safeL2Singleton: c.safeL2Singleton,
    safeFallbackHandler: c.safeFallbackHandler,
    dexFactory: c.dexFactory,
    wbnb: c.wbnb,
  };
  const relayer: LocalAccount = privateKeyToAccount(config.RELAYER_PRIVATE_KEY);
  const extraOwners: Address[] = config.SAFE_OWNERS ?? [];
  const pairInitCodeHash: Hex = settings.pairInitCodeHash;
  const fromBlock = BigInt(config.BSC_START_BLOCK ?? 0);
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
      tenantId: services.steward.tenantId,
      timeoutMs: services.timeoutMs,
      approvalWaitMs: STEWARD_LIMITS.approvalWaitMs,
      approvalPollMs: STEWARD_LIMITS.approvalPollMs,
    }),
    launchpad: createFourMemeClient({
      url: services.fourMeme.url,
      timeoutMs: services.timeoutMs,
    }),
    sessionKey: secretsKey(config, "launchpad four.meme sessions v1"),
    trustedImageOrigins: services.trustedImageOrigins,
    tokenTerms: config.tokenTerms,
    apiUrl: config.apiUrl,
    killPoints:
      config.LAUNCHPAD_ENV === "test" && config.LAUNCHPAD_TEST_KILL_POINTS
        ? config.LAUNCHPAD_TEST_KILL_POINTS.split(",").map((s) => s.trim())
        : [],
    dataDir: config.dataDir,
    announcer: announcerFromConfig(config),
  };
}
