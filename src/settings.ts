// Shared by the indexing files (it registers no handler). Addresses the handlers compare against.
import { resolveChain } from "../lib/chain.ts";
import { loadConfig } from "../lib/config.ts";

const config = loadConfig();
const chain = resolveChain(config);

export type Hex = `0x${string}`;

export const settings = {
  chainId: chain.chainId,
  rpcUrls: chain.rpcUrls,
  tokenManager2: chain.contracts.tokenManager2.toLowerCase() as Hex,
  wbnb: chain.contracts.wbnb.toLowerCase() as Hex,
  dexFactory: chain.contracts.dexFactory.toLowerCase() as Hex,
  pairInitCodeHash: chain.pairInitCodeHash,
  /**
   * The index starts at or before the identity registry's deployment (the devnet deploys it in
   * its own record's first blocks), so `registry_agent` knows every identity: an agent missing
   * there does not exist. Elsewhere (BSC's registry predates us) a link to an agent never seen
   * reads the registry instead.
   */
  identityEventsComplete:
    chain.devnet &&
    config.BSC_START_BLOCK !== undefined &&
    chain.startBlock <= config.BSC_START_BLOCK,
};

export const ZERO = "0x0000000000000000000000000000000000000000" as Hex;
export const DEAD = "0x000000000000000000000000000000000000dead" as Hex;
export const SOURCE = "evm-indexer:bsc";
export const WAD = 10n ** 18n;

export const lower = (a: string) => a.toLowerCase() as Hex;

/** Stable id of a log: `${chainId}:${txHash}:${logIndex}`. */
export const logId = (txHash: string, logIndex: number) =>
  `${settings.chainId}:${txHash}:${logIndex}`;
