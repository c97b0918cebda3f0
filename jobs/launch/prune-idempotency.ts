import type { PgBoss } from "pg-boss";
import type { Sql } from "../../lib/db/client.ts";
import type { Logger } from "../../lib/logger.ts";
import { LAUNCH_LIMITS } from "../limits.ts";

/**
 * Forgets Idempotency-Keys of launch requests older than `olderThanHours`, answered or not (an
 * unanswered one that old is a request whose process died). Returns how many were deleted.
 *
 * @example
 * const deleted = await pruneIdempotencyKeys(sql, LAUNCH_LIMITS.idempotencyKeepHours);
 */
export async function pruneIdempotencyKeys(sql: Sql, olderThanHours: number): Promise<number> {
  const batch = LAUNCH_LIMITS.idempotencyPruneBatch;
  let total = 0;
  for (;;) {
    const { count } = await sql`delete from app.launch_idempotency where (agent_id, idem_key) in (
        select agent_id, idem_key from app.launch_idempotency
        where created_at < now() - ${olderThanHours} * interval '1 hour'
        limit ${batch})`;
    total += count;
    if (count < batch) return total;
  }
}

/**
 * Schedules the hourly pruning on pg-boss: its cron runs the job once per hour across every
 * worker process. Without it the table grows by one row per distinct key for good.
 */
export async function scheduleIdempotencyPrune(p: {
  boss: PgBoss;
  sql: Sql;
  log: Logger;
}): Promise<() => Promise<void>> {
  const queue = LAUNCH_LIMITS.idempotencyPruneQueue;
  await p.boss.createQueue(queue);
  await p.boss.schedule(queue, LAUNCH_LIMITS.idempotencyPruneCron, null, { retryLimit: 1 });
  await p.boss.work(queue, async () => {
    const n = await pruneIdempotencyKeys(p.sql, LAUNCH_LIMITS.idempotencyKeepHours);
    if (n > 0) p.log.info({ deleted: n }, "forgot old launch Idempotency-Keys");
  });
  return async () => {
    await p.boss.offWork(queue);
  };
}
