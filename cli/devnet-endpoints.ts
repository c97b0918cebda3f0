import { readArbitrumRecord } from "../devnet/arbitrum.ts";
import type { Config } from "../lib/config.ts";
import { resolveEndpoints } from "../lib/endpoints.ts";
import { redactUrl } from "../lib/secret-urls.ts";
import { resolveHyperliquid } from "../services/hyperliquid/config.ts";
import { resolveSafeTxService } from "../services/safe-tx-service/config.ts";
import { resolveX } from "../services/x/config.ts";

/** The USDC stand-in's decimals (contracts/src/DevnetUsdc.sol, as Circle's USDC). */
const USDC_DECIMALS = 6;

/**
 * Every endpoint a user or a test of the local stack needs beside the contracts: the base URL of
 * each stand-in as the service's own configuration uses it (a configured real service shows as
 * such), and the second chain's RPC and USDC token. URLs only, never credentials (a configured
 * RPC URL shows its scheme, host and port).
 *
 * @example
 * localEndpoints(loadConfig()).services.steward; // "http://127.0.0.1:3011"
 */
export function localEndpoints(config: Config) {
  const services = resolveEndpoints(config);
  const x = resolveX(config);
  const arbitrum = readArbitrumRecord(config.dataDir);
  return {
    services: {
      steward: services.steward.url,
      fourMeme: services.fourMeme.url,
      x: x ? { apiUrl: x.apiUrl, oauthUrl: x.oauthUrl } : null,
      hyperliquid: resolveHyperliquid(config)?.apiUrl ?? null,
      safeTransactionService: resolveSafeTxService(config)?.apiUrl ?? null,
    },
    arbitrum: arbitrum
      ? {
          chainId: arbitrum.chainId,
          // A configured RPC's key is in its path or query: shown without them.
          rpcUrl: config.ARBITRUM_RPC_URL ? redactUrl(config.ARBITRUM_RPC_URL) : arbitrum.rpcUrl,
          usdc: { address: arbitrum.usdc, decimals: USDC_DECIMALS },
          bridge: arbitrum.bridge,
          deployedAtBlock: arbitrum.deployedAtBlock,
        }
      : null,
  };
}
