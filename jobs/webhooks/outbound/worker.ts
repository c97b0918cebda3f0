import type { PgBoss } from "pg-boss";
import { createPublicClient, http } from "viem";
import type { Config } from "../../../lib/config.ts";
import type { Sql } from "../../../lib/db/client.ts";
import { OUTBOUND_LIMITS } from "../../../lib/limits.ts";
import type { Logger } from "../../../lib/logger.ts";
import { outboundSettings } from "../../../lib/webhooks/outbound/settings.ts";
import { scheduleRetention } from "../../retention.ts";
import { startOutboundDispatcher } from "./dispatcher.ts";
import { deliveryRetention } from "./prune.ts";
import type { HeadBlockReader } from "./release.ts";

/**
 * Starts the outbound webhook dispatcher of a configured worker (the chain head comes from
 * the configured RPC, the devnet's in local mode) and the hourly pruning of the delivery log
 * on pg-boss.
 */
export async function startOutboundWorker(p: {
  boss: PgBoss;
  sql: Sql;
  config: Config;
  log: Logger;
}): Promise<() => Promise<void>> {
  const settings = outboundSettings(p.config);
  const url = p.config.rpcUrls[0];
  const client = url
    ? createPublicClient({
        transport: http(url, { timeout: OUTBOUND_LIMITS.headTimeoutMs, retryCount: 0 }),
      })
    : undefined;
  const headBlock: HeadBlockReader = async () => client?.getBlockNumber({ cacheTime: 0 });
  const dispatcher = await startOutboundDispatcher({
    sql: p.sql,
    log: p.log,
    headBlock,
    ...settings,
  });
  const stopPrune = await scheduleRetention(p, deliveryRetention);
  return async () => {
    await stopPrune();
    await dispatcher.stop();
  };
}
