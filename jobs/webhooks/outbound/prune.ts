import type { PgBoss } from "pg-boss";
import type { Sql } from "../../../lib/db/client.ts";
import { OUTBOUND_LIMITS } from "../../../lib/limits.ts";
import type { Logger } from "../../../lib/logger.ts";

/**
 * Deletes finished deliveries (succeeded, failed, cancelled) older than `olderThanDays`,
 * with their attempts; pending and held ones stay whatever their age. Returns how many.
 */
export async function pruneDeliveries(sql: Sql, olderThanDays: number): Promise<number> {
  let total = 0;
  for (;;) {
    const { count } = await sql`delete from app.webhook_deliveries where delivery_id in (
        select delivery_id from app.webhook_deliveries
        where status in ('succeeded', 'failed', 'cancelled')
          and finished_at < now() - ${olderThanDays} * interval '1 day'
        limit ${OUTBOUND_LIMITS.pruneBatch})`;
    total += count;
    if (count < OUTBOUND_LIMITS.pruneBatch) return total;
  }
}

/**
 * Schedules the hourly pruning of the delivery log on pg-boss: its cron runs the job once per
 * hour across every worker process, whichever picks it up.
 */
export async function schedulePrune(p: {
  boss: PgBoss;
  sql: Sql;
  log: Logger;
}): Promise<() => Promise<void>> {
  const queue = OUTBOUND_LIMITS.pruneQueue;
  await p.boss.createQueue(queue);
  await p.boss.schedule(queue, OUTBOUND_LIMITS.pruneCron, null, { retryLimit: 1 });
  await p.boss.work(queue, async () => {
    const n = await pruneDeliveries(p.sql, OUTBOUND_LIMITS.retentionDays);
    if (n > 0) p.log.info({ deleted: n }, "pruned the webhook delivery log");
  });
  return async () => {
    await p.boss.offWork(queue);
  };
}
