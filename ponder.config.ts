import { createConfig } from "ponder";
import { tokenManager2Abi } from "./abis/TokenManager2.ts";
import { resolveChain } from "./lib/chain.ts";
import { loadConfig } from "./lib/config.ts";

// Ponder runs this file in the indexer role's child process; the indexer command has already
// validated the configuration and reset the index if the chain changed.
const chain = resolveChain(loadConfig());

export default createConfig({
  database: { kind: "postgres", connectionString: process.env.DATABASE_URL },
  chains: {
    bsc: {
      id: 56,
      rpc: chain.rpcUrls,
      ws: chain.wsUrl,
      // The devnet mines a block a second; BSC about every 0.45 s.
      pollingInterval: chain.devnet ? 500 : 1_000,
    },
  },
  contracts: {
    TokenManager2: {
      chain: "bsc",
      abi: tokenManager2Abi,
      address: chain.contracts.tokenManager2,
      startBlock: chain.startBlock,
    },
  },
});
