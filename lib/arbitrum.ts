import { type Config, ConfigError } from "./config.ts";

type Address = `0x${string}`;

/** Native USDC on Arbitrum One (Circle; 6 decimals; not USDC.e). */
export const ARBITRUM_USDC = "0xaf88d065e77c8cc2239327c5edb3a432268e5831" as const;
/** Hyperliquid's Bridge2 on Arbitrum One: a plain USDC transfer to it credits the sender's perps account. */
export const HYPERLIQUID_BRIDGE2 = "0x2df1c51e09aecf9cacb7bc98cb1742757f163df7" as const;
export const ARBITRUM_CHAIN_ID = 42161;
/** The source of every Arbitrum-derived event (docs/events.md). */
export const ARBITRUM_SOURCE = "evm-indexer:arbitrum";

/** The second chain the indexer follows: USDC moves of the agents' perps deposit addresses. */
export type ArbitrumSettings = {
  chainId: typeof ARBITRUM_CHAIN_ID;
  rpcUrl: string;
  /** Where new heads are pushed (ARBITRUM_WS_URL), or undefined: the indexer polls. */
  wsUrl?: string;
  /** The local anvil (`npm start` without BSC_RPC_URL) rather than Arbitrum One. */
  devnet: boolean;
  usdc: Address;
  /** The perps venue's deposit contract: USDC sent here is a `perps.deposit.sent`. */
  bridge: Address;
  startBlock: number;
};

/**
 * The Arbitrum settings, or undefined when the chain is not configured (ARBITRUM_RPC_URL
 * unset): the indexer then follows BSC only. On the devnet the CLI hands the local chain's
 * record in as these same variables (devnet/config.ts).
 */
export function resolveArbitrum(config: Config): ArbitrumSettings | undefined {
  if (!config.ARBITRUM_RPC_URL) return undefined;
  // From genesis, Arbitrum One's USDC history is hundreds of millions of transfers.
  if (config.LAUNCHPAD_ENV === "production" && config.ARBITRUM_START_BLOCK === undefined) {
    throw new ConfigError(
      "ARBITRUM_START_BLOCK",
      "must be set with ARBITRUM_RPC_URL in production (the first Arbitrum block to index)",
    );
  }
  return {
    chainId: ARBITRUM_CHAIN_ID,
    rpcUrl: config.ARBITRUM_RPC_URL,
    wsUrl: config.ARBITRUM_WS_URL,
    devnet: config.devnet,
    usdc: config.ARBITRUM_USDC_ADDRESS ?? ARBITRUM_USDC,
    bridge: config.ARBITRUM_BRIDGE_ADDRESS ?? HYPERLIQUID_BRIDGE2,
    startBlock: config.ARBITRUM_START_BLOCK ?? 0,
  };
}
