import type { Config } from "../../lib/config.ts";
import type { Sql } from "../../lib/db/client.ts";
import { policyVersions } from "../../lib/policy/store.ts";
import { createHyperliquidClient } from "../../services/hyperliquid/client.ts";
import { resolveHyperliquid } from "../../services/hyperliquid/config.ts";
import type { AuditSources } from "./auditor.ts";

/**
 * The auditor's sources: the policy versions the service keeps (Postgres) and, when a perps
 * venue is configured, its positions.
 */
export function policyAuditSources(config: Config, sql: Sql): AuditSources {
  const hl = resolveHyperliquid(config);
  const venue = hl ? createHyperliquidClient({ apiUrl: hl.apiUrl }) : undefined;
  return {
    versions: (walletId) => policyVersions(sql, walletId),
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
