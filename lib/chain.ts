import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "./config.ts";

type Address = `0x${string}`;

/** Where the service's chain is and which contracts it follows there. */
export type ChainSettings = {
  chainId: 56;
  devnet: boolean;
  rpcUrls: string[];
  wsUrl?: string;
  /** First block the indexer reads. */
  startBlock: number;
  pairInitCodeHash: `0x${string}`;
  contracts: {
    tokenManager2: Address;
    identityRegistry: Address;
    dexFactory: Address;
    dexRouter: Address;
    wbnb: Address;
    bnbUsdFeed: Address;
    launchFactory?: Address;
  };
};

/** The devnet's deployment record (written by `devnet/deploy.ts`), as far as the service reads it. */
type DeploymentRecordView = {
  deployedAtBlock?: number;
  pairInitCodeHash: `0x${string}`;
  contracts: Record<string, Address | undefined>;
};

export function deploymentRecordPath(dataDir: string): string {
  return join(dataDir, "devnet", "deployment.json");
}

/**
 * Chain settings from the configuration: mainnet addresses (or the ones configured) with a
 * BSC RPC, or the devnet's own contract set from its deployment record.
 *
 * @example
 * const chain = resolveChain(loadConfig());
 */
export function resolveChain(config: Config): ChainSettings {
  if (!config.devnet) {
    return {
      chainId: 56,
      devnet: false,
      rpcUrls: config.rpcUrls,
      wsUrl: config.BSC_WS_URL,
      startBlock: config.BSC_START_BLOCK ?? 0,
      pairInitCodeHash: config.PAIR_INIT_CODE_HASH,
      contracts: {
        tokenManager2: config.TOKEN_MANAGER_ADDRESS,
        identityRegistry: config.IDENTITY_REGISTRY_ADDRESS,
        dexFactory: config.DEX_FACTORY_ADDRESS,
        dexRouter: config.DEX_ROUTER_ADDRESS,
        wbnb: config.WBNB_ADDRESS,
        bnbUsdFeed: config.BNB_USD_FEED_ADDRESS,
        launchFactory: config.LAUNCH_FACTORY_ADDRESS,
      },
    };
  }
  let record: DeploymentRecordView;
  try {
    record = JSON.parse(readFileSync(deploymentRecordPath(config.dataDir), "utf8"));
  } catch (error) {
    throw new Error(
      `no devnet deployment record in ${config.dataDir}: start the devnet first (launchpad devnet, or launchpad start)`,
      { cause: error },
    );
  }
  const c = record.contracts;
  const need = (name: string): Address => {
    const a = c[name];
    if (!a) throw new Error(`devnet deployment record has no ${name}`);
    return a;
  };
  return {
    chainId: 56,
    devnet: true,
    rpcUrls: config.rpcUrls,
    startBlock: record.deployedAtBlock ?? 0,
    pairInitCodeHash: record.pairInitCodeHash,
    contracts: {
      tokenManager2: need("tokenManager2"),
      identityRegistry: need("identityRegistry"),
      dexFactory: need("uniswapV2Factory"),
      dexRouter: need("uniswapV2Router"),
      wbnb: need("wbnb"),
      bnbUsdFeed: need("bnbUsdFeed"),
      launchFactory: c.launchFactory,
    },
  };
}
