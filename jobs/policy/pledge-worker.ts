import type { Sql } from "../../lib/db/client.ts";
import type { Logger } from "../../lib/logger.ts";
import { recordBoundLoosenings } from "../../lib/policy/pledge-store.ts";
import { startTicker } from "../../lib/ticker.ts";
import { PLEDGE_BIND } from "../limits.ts";

/**
 * Announces each sell-pledge loosening once its delay has ended (`pledge.loosened`, for the feed,
 * the WebSocket and outbound webhooks): a round every `PLEDGE_BIND.everyMs` writes the events
 * still missing, so a round missed while no worker ran is made up by the next, and two workers
 * write each event once (docs/policies.md, "Sell pledge").
 *
 * @example
 * const stop = startPledgeBindWorker({ sql, log });
 */
export function startPledgeBindWorker(p: { sql: Sql; log: Logger }): () => Promise<void> {
  const ticker = startTicker({
    everyMs: PLEDGE_BIND.everyMs,
    immediately: true,
    tick: async () => {
      const written = await recordBoundLoosenings(p.sql, new Date());
      if (written.length > 0) p.log.info({ loosened: written.length }, "sell pledges loosened");
    },
    onError: (error) => p.log.warn({ err: error }, "sell pledge round failed; the next retries"),
  });
  return ticker.stop;
}
