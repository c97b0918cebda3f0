import { toHex } from "viem";
import type { Config } from "../lib/config.ts";
import { devnetAccounts } from "./accounts.ts";
import { arbitrumEnv, readArbitrumRecord } from "./arbitrum.ts";
import { type DeploymentRecord, deploymentRecordPath, readDeploymentRecord } from "./record.ts";

/**
 * The devnet's deployment record as configuration: the same variables an operator sets on BSC
 * (contract addresses, init code hash, start block), plus the devnet's relayer key and the
 * platform account as Safe co-owner unless they are configured. The record is read here, by
 * the devnet, and the rest of the service only ever sees configuration.
 */
export function deploymentEnv(
  record: DeploymentRecord,
  config: Config,
  recordPath: string,
): Record<string, string> {
  const c = record.contracts;
  const env: Record<string, string> = {
    DEVNET_RECORD: recordPath,
    TOKEN_MANAGER_ADDRESS: c.tokenManager2,
    IDENTITY_REGISTRY_ADDRESS: c.identityRegistry,
    DEX_FACTORY_ADDRESS: c.uniswapV2Factory,
    DEX_ROUTER_ADDRESS: c.uniswapV2Router,
    WBNB_ADDRESS: c.wbnb,
    BNB_USD_FEED_ADDRESS: c.bnbUsdFeed,
    LAUNCH_FACTORY_ADDRESS: c.launchFactory,
    SERVICE_REGISTRY_ADDRESS: c.serviceRegistry,
    SAFE_L2_SINGLETON_ADDRESS: c.safeL2Singleton,
    SAFE_PROXY_FACTORY_ADDRESS: c.safeProxyFactory,
    SAFE_FALLBACK_HANDLER_ADDRESS: c.safeFallbackHandler,
    PAIR_INIT_CODE_HASH: record.pairInitCodeHash,
    BSC_START_BLOCK: String(record.deployedAtBlock ?? 0),
  };
  if (!config.RELAYER_PRIVATE_KEY) {
    const key = devnetAccounts().relayer.getHdKey().privateKey;
    if (key) env.RELAYER_PRIVATE_KEY = toHex(key);
  }
  // Locally the platform account co-owns every treasury unless owners are configured.
  if (!config.SAFE_OWNERS) env.SAFE_OWNERS = record.accounts.platform;
  return env;
}

/**
 * Reads the deployment record in `config.dataDir` and returns it as configuration variables,
 * or an empty object when the devnet has not been deployed yet.
 *
 * @example
 * Object.assign(process.env, devnetEnv(loadConfig()));
 */
export function devnetEnv(config: Config): Record<string, string> {
  const record = readDeploymentRecord(config.dataDir);
  if (!record) return {};
  const env = deploymentEnv(record, config, deploymentRecordPath(config.dataDir));
  // The local Arbitrum chain, unless an operator points ARBITRUM_RPC_URL elsewhere.
  const arbitrum = config.ARBITRUM_RPC_URL ? undefined : readArbitrumRecord(config.dataDir);
  return arbitrum ? { ...env, ...arbitrumEnv(arbitrum, config) } : env;
}
