import { type Chain, defineChain, type Hex, type PublicClient } from "viem";
import { type Config, ConfigError } from "./config.ts";

type Address = `0x${string}`;

/** Where the service's chain is and which contracts it follows there. */
/**
 * Multicall3 at its canonical address, the same on every chain: deployed on BSC, placed there by
 * the devnet's deploy.
 */
export const MULTICALL3_ADDRESS = "0xca11bde05977b3631167028862be2a173976ca11" as const;

export type ChainSettings = {
  chainId: 56;
  devnet: boolean;
  rpcUrls: string[];
  /**
   * Where the indexer subscribes to new heads (`eth_subscribe`), instead of polling: BSC_WS_URL,
   * or on a devnet that mines on its own the devnet's port (anvil speaks WebSocket there too).
   */
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
    safeL2Singleton: Address;
    safeProxyFactory: Address;
    safeFallbackHandler: Address;
    launchFactory?: Address;
    /** The service's ServiceRegistry: names the tokens the indexer follows. */
    serviceRegistry?: Address;
  };
};

/**
 * The viem chain definition every client of the service uses: BSC's id (the devnet runs as
 * chain 56 too) and native currency, with the given RPC URLs.
 *
 * @example
 * const client = createPublicClient({ chain: viemChain({ rpcUrls: [rpcUrl] }), transport: http(rpcUrl) });
 */
export function viemChain(p: { rpcUrls: string[]; id?: number; name?: string }): Chain {
  return defineChain({
    id: p.id ?? 56,
    name: p.name ?? "bsc",
    nativeCurrency: { name: "BNB", symbol: "BNB", decimals: 18 },
    rpcUrls: { default: { http: p.rpcUrls } },
  });
}

/**
 * Chain settings from the configuration alone. On BSC these are the mainnet addresses (or the
 * ones configured); on the devnet the CLI reads the deployment record and hands its addresses
 * in as the same variables (devnet/config.ts), so nothing here reads devnet files.
 */
export function resolveChain(config: Config): ChainSettings {
  if (config.devnet && !config.DEVNET_RECORD) {
    throw new ConfigError(
      "DEVNET_RECORD",
      `no devnet deployment record in ${config.dataDir}: start the devnet first (launchpad devnet, or launchpad start)`,
    );
  }
  return {
    chainId: 56,
    devnet: config.devnet,
    rpcUrls: config.rpcUrls,
    wsUrl: config.devnet ? devnetWsUrl(config) : config.BSC_WS_URL,
    startBlock: config.LAUNCHPAD_FROM_BLOCK ?? config.BSC_START_BLOCK ?? 0,
    pairInitCodeHash: config.PAIR_INIT_CODE_HASH,
    contracts: {
      tokenManager2: config.TOKEN_MANAGER_ADDRESS,
      identityRegistry: config.IDENTITY_REGISTRY_ADDRESS,
      dexFactory: config.DEX_FACTORY_ADDRESS,
      dexRouter: config.DEX_ROUTER_ADDRESS,
      wbnb: config.WBNB_ADDRESS,
      bnbUsdFeed: config.BNB_USD_FEED_ADDRESS,
      safeL2Singleton: config.SAFE_L2_SINGLETON_ADDRESS,
      safeProxyFactory: config.SAFE_PROXY_FACTORY_ADDRESS,
      safeFallbackHandler: config.SAFE_FALLBACK_HANDLER_ADDRESS,
      launchFactory: config.LAUNCH_FACTORY_ADDRESS,
      serviceRegistry: config.SERVICE_REGISTRY_ADDRESS,
    },
  };
}

/**
 * The devnet's WebSocket (anvil serves it on its HTTP port), or undefined on an automine devnet
 * (DEVNET_BLOCK_TIME=0): there a head comes only with a transaction, so after a start the indexer
 * would not read the blocks mined before it until the next one, where polling reads them at once.
 */
function devnetWsUrl(config: Config): string | undefined {
  if (config.DEVNET_BLOCK_TIME === 0) return undefined;
  return config.rpcUrls[0]?.replace(/^http/, "ws");
}

/**
 * A hash that names one chain: the hash of block 1, or undefined while there is none.
 * Not block 0: anvil regenerates its genesis block when it reloads a state file written by its
 * periodic dump, so block 0's hash changes across a hard restart of the same chain, while
 * every mined block keeps its hash. A new chain has a new block 1 (another timestamp).
 */
export async function readChainIdentity(client: PublicClient): Promise<Hex | undefined> {
  const block = await client.getBlock({ blockNumber: 1n }).catch(() => undefined);
  return block?.hash ?? undefined;
}
