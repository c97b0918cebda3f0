import type { Config } from "../../lib/config.ts";
import { resolveServices } from "../../lib/services.ts";
import { createHyperliquidClient } from "../../services/hyperliquid/client.ts";
import { resolveHyperliquid } from "../../services/hyperliquid/config.ts";
import { createStewardClient } from "../../services/steward/client.ts";
import type { AuditSources } from "./auditor.ts";

/**
 * The auditor's sources from the configuration: the signer's policy versions (the
 * authoritative copy) and, when a perps venue is configured, its positions.
 *
 * @example
 * const sources = policyAuditSources(config);
 */
export function policyAuditSources(config: Config): AuditSources {
  const { steward } = resolveServices(config);
  const client = createStewardClient({
    url: steward.url,
    apiKey: steward.apiKey,
    tenantId: steward.tenantId,
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
  });
  const hl = resolveHyperliquid(config);
  const venue = hl ? createHyperliquidClient({ apiUrl: hl.apiUrl }) : undefined;
  return {
    versions: async (walletId) => (await client.listPolicyVersions(walletId)).versions,
    venuePositions: venue
      ? async (wallet) =>
          (await venue.clearinghouseState(wallet)).assetPositions.map((a) => ({
            coin: a.position.coin,
            positionValueUsd: a.position.positionValue,
            leverage: a.position.leverage.value,
          }))
      : undefined,
  };
}
