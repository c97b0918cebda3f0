import type { Sql } from "../../../lib/db/client.ts";
import { OUTBOUND_LIMITS } from "../../../lib/limits.ts";
import { deleteInBatches, type Retention } from "../../retention.ts";

/**
 * Deletes finished deliveries (succeeded, failed, cancelled) older than `olderThanDays`,
 * with their attempts; pending and held ones stay whatever their age. Returns how many.
 */
export function pruneDeliveries(sql: Sql, olderThanDays: number): Promise<number> {
  return deleteInBatches(
    OUTBOUND_LIMITS.pruneBatch,
    (n) => sql`delete from app.webhook_deliveries where delivery_id in (
        select delivery_id from app.webhook_deliveries
        where status in ('succeeded', 'failed', 'cancelled')
          and finished_at < now() - ${olderThanDays} * interval '1 day'
        limit ${n})`,
  );
}

/** The delivery log's hourly pruning (OUTBOUND_LIMITS.retentionDays). */
export const deliveryRetention: Retention = {
  queue: OUTBOUND_LIMITS.pruneQueue,
  cron: OUTBOUND_LIMITS.pruneCron,
  what: "the webhook delivery log",
  prune: (sql) => pruneDeliveries(sql, OUTBOUND_LIMITS.retentionDays),
};
