import type { PgBoss } from "pg-boss";
import type { Sql } from "../lib/db/client.ts";
import type { Logger } from "../lib/logger.ts";

/** A table kept to a window: what its hourly job deletes, and how it is named. */
export type Retention = {
  /** pg-boss queue of the job; its cron runs it once per period across every worker process. */
  queue: string;
  cron: string;
  /** Says what went, in the log line of a run that deleted rows. */
  what: string;
  /** Deletes what is past the window; returns how many rows. */
  prune: (sql: Sql) => Promise<number>;
};

/**
 * Runs `remove(limit)` (a DELETE of at most `limit` rows, returning its count) until it deletes
 * fewer than `limit`, so a backlog never holds one long lock. Returns the total.
 *
 * @example
 * await deleteInBatches(5_000, (n) => sql`delete from app.t where id in (
 *   select id from app.t where at < now() - interval '1 day' limit ${n})`);
 */
export async function deleteInBatches(
  limit: number,
  remove: (limit: number) => PromiseLike<{ count: number }>,
): Promise<number> {
  let total = 0;
  for (;;) {
    const { count } = await remove(limit);
    total += count;
    if (count < limit) return total;
  }
}

/**
 * Schedules `r` on pg-boss and works its queue; returns the stop.
 *
 * @example
 * const stop = await scheduleRetention({ boss, sql, log }, inboxRetention);
 */
export async function scheduleRetention(
  p: { boss: PgBoss; sql: Sql; log: Logger },
  r: Retention,
): Promise<() => Promise<void>> {
  await p.boss.createQueue(r.queue);
  await p.boss.schedule(r.queue, r.cron, null, { retryLimit: 1 });
  await p.boss.work(r.queue, async () => {
    const deleted = await r.prune(p.sql);
    if (deleted > 0) p.log.info({ deleted }, `pruned ${r.what}`);
  });
  return async () => {
    await p.boss.offWork(r.queue);
  };
}
