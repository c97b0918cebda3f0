import type { PgBoss } from "pg-boss";
import type { Sql } from "../../lib/db/client.ts";
import type { Logger } from "../../lib/logger.ts";
import { JOB_LIMITS, EVENT_JOB_LIMITS as L } from "../limits.ts";
import { scheduleRetention } from "../retention.ts";
import { drainInboxBatch } from "./consumer.ts";
import { inboxRetention } from "./prune-inbox.ts";
import { startChainProjector } from "./run-projector.ts";

export type StartEventsWorkerParameters = {
  boss: PgBoss;
  sql: Sql;
  log: Logger;
  /** Ponder's views schema: the chain projector reads it (unset: no projector). */
  viewsSchema?: string;
  /** The perps venue's deposit address on Arbitrum, when that chain is indexed. */
  arbitrumBridge?: string;
  /** Test mode only: SIGKILL this process inside the Nth batch transaction, before it commits. */
  killInBatch?: number;
};

/**
 * Registers the inbox consumer on pg-boss. A drain job consumes batches until the inbox is
 * empty (or its time budget is spent, then it asks for another). Jobs are asked for on every
 * `NOTIFY webhook_inbox` and on a timer (a missed notification, a killed worker's rows):
 * the 'short' queue keeps at most one waiting, and the running ones stay apart with SKIP
 * LOCKED, so a job left active by a killed worker never holds the inbox up. Consumed rows are
 * pruned hourly after EVENT_JOB_LIMITS.inboxRetentionDays.
 */
export async function startEventsWorker(
  p: StartEventsWorkerParameters,
): Promise<() => Promise<void>> {
  await p.boss.createQueue(L.drainQueue, {
    policy: "short",
    expireInSeconds: L.drainExpireSeconds,
    retryLimit: 0,
    notify: true,
  });
  await p.boss.updateQueue(L.drainQueue, { notify: true });
  const workerId = await p.boss.work(
    L.drainQueue,
    {
      localConcurrency: L.drainConcurrency,
      pollingIntervalSeconds: JOB_LIMITS.pollingIntervalSeconds,
      // A kick's send NOTIFYs the workers; their polling is only the backstop.
      notifyPollingIntervalSeconds: JOB_LIMITS.notifyPollingIntervalSeconds,
    },
    async () => {
      const until = Date.now() + L.drainBudgetMs;
      for (;;) {
        const r = await drainInboxBatch(p.sql, undefined, beforeCommit);
        if (r.failed > 0)
          p.log.warn({ failed: r.failed }, "inbox rows failed; see launchpad webhooks failed");
        if (r.processed + r.failed === 0) return;
        if (Date.now() > until) return kick();
      }
    },
  );
  let batches = 0;
  const beforeCommit = p.killInBatch
    ? () => {
        if (++batches < (p.killInBatch as number)) return;
        process.stderr.write("test kill point: SIGKILL inside an inbox batch transaction\n");
        process.kill(process.pid, "SIGKILL");
      }
    : undefined;
  let kicking = false;
  async function kick(): Promise<void> {
    if (kicking) return;
    kicking = true;
    try {
      await p.boss.send(L.drainQueue, {}, { retryLimit: 0, expireInSeconds: L.drainExpireSeconds });
      p.boss.notifyWorker(workerId);
    } catch (error) {
      p.log.warn({ err: error }, "could not queue an inbox drain");
    } finally {
      kicking = false;
    }
  }
  // The third argument runs on every (re)connect of the listener: what was sent while it was
  // away is drained then, not at the next timer.
  const listener = await p.sql.listen(
    "webhook_inbox",
    () => void kick(),
    () => void kick(),
  );
  const timer = setInterval(() => void kick(), L.kickEveryMs);
  await kick();
  const stopProjector = p.viewsSchema
    ? (
        await startChainProjector({
          sql: p.sql,
          schema: p.viewsSchema,
          log: p.log,
          arbitrumBridge: p.arbitrumBridge,
        })
      ).stop
    : undefined;
  const stopPrune = await scheduleRetention(p, inboxRetention);
  return async () => {
    clearInterval(timer);
    await stopPrune();
    await stopProjector?.();
    await listener.unlisten().catch(() => {});
    await p.boss.offWork(L.drainQueue);
  };
}
