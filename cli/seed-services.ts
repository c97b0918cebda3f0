import type { SeedServices } from "../devnet/agent-seed/run.ts";
import { SAMPLE_PATHS } from "../devnet/stand-ins/four-meme/sample-image.ts";
import type { Config } from "../lib/config.ts";
import { resolveHyperliquid } from "../services/hyperliquid/config.ts";
import { resolveSafeTxService } from "../services/safe-tx-service/config.ts";
import { resolveX } from "../services/x/config.ts";

/**
 * What `devnet seed` may drive besides the chains: the API and the local stand-ins, as URLs
 * (devnet/ imports nothing of services/). A real service (its URL configured) is left out, so
 * the seed never writes to it.
 *
 * @example
 * await seedDevnet({ rpcUrl, dataDir, services: seedServices(config) });
 */
export function seedServices(config: Config): SeedServices {
  const hl = resolveHyperliquid(config);
  const safe = resolveSafeTxService(config);
  const x = resolveX(config);
  return {
    apiUrl: config.apiUrl,
    // The launchpad stand-in hosts an image the launch's check accepts.
    sampleImageUrl: `http://127.0.0.1:${config.FOUR_MEME_API_PORT}${SAMPLE_PATHS.image}`,
    hyperliquidUrl: hl?.local ? hl.apiUrl : undefined,
    safeTxServiceUrl: safe?.local ? safe.apiUrl : undefined,
    xApiUrl: x?.local ? x.apiUrl : undefined,
  };
}
