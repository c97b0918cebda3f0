import type { Sql } from "../../lib/db/client.ts";
import { EVENT_JOB_LIMITS as L } from "../limits.ts";
import { deleteInBatches, type Retention } from "../retention.ts";

/**
 * Deletes inbox rows consumed more than `olderThanDays` ago; rows waiting or in the dead letter
 * stay whatever their age. Their events stay in the feed. Returns how many were deleted.
 *
 * @example
 * const deleted = await pruneInbox(sql, EVENT_JOB_LIMITS.inboxRetentionDays);
 */
export function pruneInbox(sql: Sql, olderThanDays: number): Promise<number> {
  return deleteInBatches(
    L.inboxPruneBatch,
    (n) => sql`delete from app.webhook_inbox where id in (
        select id from app.webhook_inbox
        where processed_at < now() - ${olderThanDays} * interval '1 day' and failed_at is null
        limit ${n})`,
  );
}

/** The inbox's hourly pruning (EVENT_JOB_LIMITS.inboxRetentionDays). */
export const inboxRetention: Retention = {
  queue: L.inboxPruneQueue,
  cron: L.inboxPruneCron,
  what: "consumed inbound webhooks",
  prune: (sql) => pruneInbox(sql, L.inboxRetentionDays),
};
