import { join } from "node:path";
import { createPublicClient, createWalletClient, type Hex, http, type PublicClient } from "viem";
import { loadArtifacts } from "../contracts/compile.ts";
import { ARBITRUM_CHAIN_ID, HYPERLIQUID_BRIDGE2 } from "../lib/arbitrum.ts";
import { readChainIdentity, viemChain } from "../lib/chain.ts";
import type { Config } from "../lib/config.ts";
import { readJsonRecord, writeJsonAtomic } from "../lib/json-file.ts";
import { devnetAccounts } from "./accounts.ts";
import { startLocalChain } from "./local-chain.ts";
import { dumpState } from "./state-file.ts";

type Address = `0x${string}`;

/** What `<dataDir>/devnet/arbitrum.json` holds: the local Arbitrum chain and its USDC. */
export type ArbitrumDevnetRecord = {
  chainId: typeof ARBITRUM_CHAIN_ID;
  rpcUrl: string;
  /** Hash of block 1: names this chain (see `readChainIdentity` in lib/chain.ts). */
  chainIdentity: Hex;
  deployedAtBlock: number;
  /** The USDC stand-in (contracts/src/DevnetUsdc.sol: "USD Coin", USDC, 6 decimals). */
  usdc: Address;
  /**
   * The perps venue's deposit address. Nothing is deployed there: the canonical Bridge2
   * address is used as is, so a deposit looks on the devnet as it does on Arbitrum One.
   */
  bridge: Address;
};

export function arbitrumRecordPath(dataDir: string): string {
  return join(dataDir, "devnet", "arbitrum.json");
}

export function readArbitrumRecord(dataDir: string): ArbitrumDevnetRecord | undefined {
  return readJsonRecord<ArbitrumDevnetRecord>(
    arbitrumRecordPath(dataDir),
    "Arbitrum devnet record",
  );
}

function writeArbitrumRecord(dataDir: string, record: ArbitrumDevnetRecord): void {
  writeJsonAtomic(arbitrumRecordPath(dataDir), record, { pretty: true });
}

/** The record as the configuration an operator sets for Arbitrum One. */
export function arbitrumEnv(
  record: ArbitrumDevnetRecord,
  config: Pick<Config, "DEVNET_BLOCK_TIME">,
): Record<string, string> {
  return {
    ARBITRUM_RPC_URL: record.rpcUrl,
    // Heads pushed as an operator would set it for Arbitrum One, where the chain mines on its own
    // (on an automine devnet a head comes only with a transaction: there the indexer polls).
    ...(config.DEVNET_BLOCK_TIME > 0 && { ARBITRUM_WS_URL: record.rpcUrl.replace(/^http/, "ws") }),
    ARBITRUM_USDC_ADDRESS: record.usdc,
    ARBITRUM_BRIDGE_ADDRESS: record.bridge,
    ARBITRUM_START_BLOCK: String(record.deployedAtBlock),
  };
}

export type RunArbitrumDevnetReturnType = {
  rpcUrl: string;
  fresh: boolean;
  record: ArbitrumDevnetRecord;
  stop: () => Promise<void>;
};

/**
 * The second local chain (chain id 42161) beside the BSC devnet: the same anvil runner, its own
 * state file (`<dataDir>/devnet/arbitrum/state.json`, kept like the first chain's), and the USDC
 * stand-in deployed once.
 */
export async function runArbitrumDevnet(p: {
  config: Config;
  log: (line: string) => void;
}): Promise<RunArbitrumDevnetReturnType> {
  const { config } = p;
  const anvil = await startLocalChain({
    config,
    dir: join(config.dataDir, "devnet", "arbitrum"),
    pidFile: "anvil-arbitrum.pid",
    portVariable: "ARBITRUM_DEVNET_PORT",
    chainId: ARBITRUM_CHAIN_ID,
    log: p.log,
  });
  try {
    const client = createPublicClient({ transport: http(anvil.rpcUrl) });
    const existing = readArbitrumRecord(config.dataDir);
    let record: ArbitrumDevnetRecord;
    if (existing && (await isArbitrumLive(client, existing))) {
      record = { ...existing, rpcUrl: anvil.rpcUrl };
    } else {
      record = await deployUsdc(anvil.rpcUrl, client);
      p.log(`arbitrum: USDC stand-in deployed at ${record.usdc}`);
    }
    writeArbitrumRecord(config.dataDir, record);
    await dumpState(anvil.rpcUrl, anvil.statePath);
    return {
      rpcUrl: anvil.rpcUrl,
      fresh: anvil.fresh,
      record,
      stop: anvil.stop,
    };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}

async function isArbitrumLive(client: PublicClient, r: ArbitrumDevnetRecord): Promise<boolean> {
  if ((await readChainIdentity(client)) !== r.chainIdentity) return false;
  const code = await client.getCode({ address: r.usdc });
  return code !== undefined && code !== "0x";
}

async function deployUsdc(rpcUrl: string, client: PublicClient): Promise<ArbitrumDevnetRecord> {
  const { DevnetUsdc } = await loadArtifacts();
  if (!DevnetUsdc) throw new Error("contract DevnetUsdc missing from the compiled artifacts");
  const wallet = createWalletClient({
    account: devnetAccounts().deployer,
    chain: viemChain({ rpcUrls: [rpcUrl], id: ARBITRUM_CHAIN_ID, name: "arbitrum" }),
    transport: http(rpcUrl),
  });
  const hash = await wallet.deployContract({
    abi: DevnetUsdc.abi,
    bytecode: DevnetUsdc.bytecode,
  });
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
  if (receipt.status !== "success" || !receipt.contractAddress)
    throw new Error("the USDC stand-in's deployment failed");
  const chainIdentity = await readChainIdentity(client);
  if (!chainIdentity) throw new Error("the arbitrum devnet has no block 1 after its deployment");
  return {
    chainId: ARBITRUM_CHAIN_ID,
    rpcUrl,
    chainIdentity,
    deployedAtBlock: Number(receipt.blockNumber),
    usdc: receipt.contractAddress.toLowerCase() as Address,
    bridge: HYPERLIQUID_BRIDGE2,
  };
}
