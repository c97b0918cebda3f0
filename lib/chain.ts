import type { Hex, PublicClient } from "viem";
import { readDeploymentRecord } from "../devnet/record.ts";
import type { Config } from "./config.ts";

type Address = `0x${string}`;

/** Where the service's chain is and which contracts it follows there. */
export type ChainSettings = {
  chainId: 56;
  devnet: boolean;
  rpcUrls: string[];
  wsUrl?: string;
  /** First block the indexer reads (a reindex `--from-block` overrides the configured one). */
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
    /** The service's ServiceRegistry: names the tokens the indexer follows. */
    serviceRegistry?: Address;
  };
};

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
      startBlock: config.LAUNCHPAD_FROM_BLOCK ?? config.BSC_START_BLOCK ?? 0,
      pairInitCodeHash: config.PAIR_INIT_CODE_HASH,
      contracts: {
        tokenManager2: config.TOKEN_MANAGER_ADDRESS,
        identityRegistry: config.IDENTITY_REGISTRY_ADDRESS,
        dexFactory: config.DEX_FACTORY_ADDRESS,
        dexRouter: config.DEX_ROUTER_ADDRESS,
        wbnb: config.WBNB_ADDRESS,
        bnbUsdFeed: config.BNB_USD_FEED_ADDRESS,
        launchFactory: config.LAUNCH_FACTORY_ADDRESS,
        serviceRegistry: config.SERVICE_REGISTRY_ADDRESS,
      },
    };
  }
  const record = readDeploymentRecord(config.dataDir);
  if (!record) {
    throw new Error(
      `no devnet deployment record in ${config.dataDir}: start the devnet first (launchpad devnet, or launchpad start)`,
    );
  }
  const c = record.contracts;
  return {
    chainId: 56,
    devnet: true,
    rpcUrls: config.rpcUrls,
    startBlock: config.LAUNCHPAD_FROM_BLOCK ?? record.deployedAtBlock ?? 0,
    pairInitCodeHash: record.pairInitCodeHash,
    contracts: {
      tokenManager2: c.tokenManager2,
      identityRegistry: c.identityRegistry,
      dexFactory: c.uniswapV2Factory,
      dexRouter: c.uniswapV2Router,
      wbnb: c.wbnb,
      bnbUsdFeed: c.bnbUsdFeed,
      launchFactory: c.launchFactory,
      serviceRegistry: c.serviceRegistry,
    },
  };
}

/**
 * A hash that names one chain: the hash of block 1, or undefined while there is none.
 * Not block 0: anvil regenerates its genesis block when it reloads a state file written by its
 * periodic dump, so block 0's hash changes across a hard restart of the same chain, while
 * every mined block keeps its hash. A new chain has a new block 1 (another timestamp).
 *
 * @example
 * const id = await readChainIdentity(publicClient); // "0x57bb…f89b"
 */
export async function readChainIdentity(client: PublicClient): Promise<Hex | undefined> {
  const block = await client.getBlock({ blockNumber: 1n }).catch(() => undefined);
  return block?.hash ?? undefined;
}
