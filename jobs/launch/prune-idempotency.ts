import type { Sql } from "../../lib/db/client.ts";
import { LAUNCH_LIMITS } from "../limits.ts";
import { deleteInBatches, type Retention } from "../retention.ts";

/**
 * Forgets Idempotency-Keys of launch requests older than `olderThanHours`, answered or not (an
 * unanswered one that old is a request whose process died). Returns how many were deleted.
 *
 * @example
 * const deleted = await pruneIdempotencyKeys(sql, LAUNCH_LIMITS.idempotencyKeepHours);
 */
export function pruneIdempotencyKeys(sql: Sql, olderThanHours: number): Promise<number> {
  return deleteInBatches(
    LAUNCH_LIMITS.idempotencyPruneBatch,
    (n) => sql`delete from app.launch_idempotency where (agent_id, idem_key) in (
        select agent_id, idem_key from app.launch_idempotency
        where created_at < now() - ${olderThanHours} * interval '1 hour'
        limit ${n})`,
  );
}

/** The hourly forgetting of old keys; without it the table grows by a row per key for good. */
export const idempotencyRetention: Retention = {
  queue: LAUNCH_LIMITS.idempotencyPruneQueue,
  cron: LAUNCH_LIMITS.idempotencyPruneCron,
  what: "old launch Idempotency-Keys",
  prune: (sql) => pruneIdempotencyKeys(sql, LAUNCH_LIMITS.idempotencyKeepHours),
};
