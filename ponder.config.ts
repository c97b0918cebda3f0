import { createConfig, factory } from "ponder";
import { type Abi, erc20Abi, getAbiItem } from "viem";
import { aggregatorV3Abi } from "./abis/AggregatorV3.ts";
import { identityRegistryAbi } from "./abis/IdentityRegistry.ts";
import { launchFactoryAbi } from "./abis/LaunchFactory.ts";
import { launchVaultAbi } from "./abis/LaunchVault.ts";
import { safeL2Abi } from "./abis/SafeL2.ts";
import { serviceRegistryAbi } from "./abis/ServiceRegistry.ts";
import { taxTokenAbi } from "./abis/TaxToken.ts";
import { resolveArbitrum } from "./lib/arbitrum.ts";
import { resolveChain } from "./lib/chain.ts";
import { loadConfig } from "./lib/config.ts";
import { indexerTransport } from "./lib/indexer/transport.ts";
import { DB_LIMITS, INDEXER_RPC_LIMITS } from "./lib/limits.ts";

// Ponder runs this file in the indexer role's child process; the indexer command has already
// validated the configuration and reset the index if the chain changed.
const config = loadConfig();
const chain = resolveChain(config);
const { serviceRegistry, launchFactory } = chain.contracts;
if (!serviceRegistry || !launchFactory) {
  throw new Error(
    "the indexer needs SERVICE_REGISTRY_ADDRESS and LAUNCH_FACTORY_ADDRESS (the service's own contracts)",
  );
}
const startBlock = chain.startBlock;
// The second chain is optional: unset ARBITRUM_RPC_URL = BSC only (the indexer role says so).
const arbitrum = resolveArbitrum(config);

// The subscription stays bounded to the service's own tokens: a token is followed only once the
// ServiceRegistry names it (or a deposit launch predicts it). Ponder matches a child's logs from
// the block of the factory event on; the saga registers after it creates, and the registration
// handler replays the token's earlier logs (src/before-registration.ts).
/** Requests in flight to a chain's node: a devnet's local anvil is the one that chokes. */
const rpcConcurrency = (devnet: boolean) =>
  devnet ? INDEXER_RPC_LIMITS.concurrency : INDEXER_RPC_LIMITS.remoteConcurrency;

const registered = getAbiItem({ abi: serviceRegistryAbi, name: "ServiceTokenRegistered" });
const launched = getAbiItem({ abi: launchFactoryAbi, name: "LaunchCreated" });

/** A contract of the service on BSC, indexed from the deployment's first block. */
const onBsc = <const A extends Abi, T>(abi: A, address: T) =>
  ({ chain: "bsc", abi, address, startBlock }) as const;
/** The children the ServiceRegistry names, and those each deposit launch creates. */
const ofRegistry = (parameter: "token" | "treasury") =>
  factory({ address: serviceRegistry, event: registered, parameter });
const ofLaunch = (parameter: "predictedToken" | "vault" | "treasury") =>
  factory({ address: launchFactory, event: launched, parameter });

export default createConfig({
  database: {
    kind: "postgres",
    connectionString: process.env.DATABASE_URL,
    // Ponder names its connections itself (`<schema>_internal`, `_user`, `_readonly`, `ponder_sync`).
    poolConfig: { max: config.INDEXER_DATABASE_POOL_SIZE ?? DB_LIMITS.ponderConnections },
  },
  chains: {
    bsc: {
      id: 56,
      // Timeouts retried as errors, not as rate limits; a bounded number of requests in flight
      // (lib/indexer/transport.ts says why).
      rpc: indexerTransport(chain.rpcUrls, { concurrency: rpcConcurrency(chain.devnet) }),
      // New heads pushed over WebSocket (BSC_WS_URL; the devnet's own port when it mines on its
      // own): a block reaches the indexer as it is mined, not at the next poll, and no full block
      // is fetched ten times a second (lib/chain.ts). Without `ws`, or once Ponder gives up on it
      // (9 failed reconnects, e.g. across an anvil restart), it polls: every 100 ms on a local
      // devnet (one cheap call), every second on BSC.
      ws: chain.wsUrl,
      pollingInterval: chain.devnet ? 100 : 1_000,
    },
    ...(arbitrum && {
      arbitrum: {
        id: arbitrum.chainId,
        rpc: indexerTransport([arbitrum.rpcUrl], {
          concurrency: rpcConcurrency(arbitrum.devnet),
        }),
        // New heads pushed where ARBITRUM_WS_URL is set (the devnet hands in its own when it
        // mines on its own); else polled. Arbitrum One makes a block every ~0.25 s; a USDC
        // deposit is not latency-critical.
        ws: arbitrum.wsUrl,
        pollingInterval: arbitrum.devnet ? 100 : 1_000,
      },
    }),
  },
  contracts: {
    ServiceRegistry: onBsc(serviceRegistryAbi, serviceRegistry),
    ServiceToken: onBsc(taxTokenAbi, ofRegistry("token")),
    ServiceTreasury: onBsc(safeL2Abi, ofRegistry("treasury")),
    LaunchFactory: onBsc(launchFactoryAbi, launchFactory),
    LaunchToken: onBsc(taxTokenAbi, ofLaunch("predictedToken")),
    LaunchVault: onBsc(launchVaultAbi, ofLaunch("vault")),
    LaunchTreasury: onBsc(safeL2Abi, ofLaunch("treasury")),
    IdentityRegistry: onBsc(identityRegistryAbi, chain.contracts.identityRegistry),
    BnbUsdFeed: onBsc(aggregatorV3Abi, chain.contracts.bnbUsdFeed),
    ...(arbitrum && {
      ArbitrumUsdc: {
        chain: "arbitrum",
        abi: erc20Abi,
        address: arbitrum.usdc,
        startBlock: arbitrum.startBlock,
      },
    }),
  },
});
