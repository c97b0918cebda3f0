import type { PgBoss } from "pg-boss";
import type { Config } from "../../lib/config.ts";
import type { Sql } from "../../lib/db/client.ts";
import type { Logger } from "../../lib/logger.ts";
import { startTicker } from "../../lib/ticker.ts";
import { JOB_LIMITS, LAUNCH_LIMITS } from "../limits.ts";
import { scheduleRetention } from "../retention.ts";
import { sagaContext } from "./context.ts";
import { prepareWallets } from "./prepare.ts";
import { enqueueSaga, ensureLaunchQueue, orphanedSagas } from "./producer.ts";
import { idempotencyRetention } from "./prune-idempotency.ts";
import { runSaga } from "./saga.ts";
import { syncAgentStatus } from "./status.ts";

export type StartLaunchWorkerParameters = { boss: PgBoss; sql: Sql; config: Config; log: Logger };

/**
 * Registers the launch saga handler on pg-boss and a sweeper that resumes sagas whose worker
 * died (lapsed lease) and keeps agents' status in step with the indexer, and prepares (funds)
 * the wallets of agents not launched yet (prepare.ts), and forgets old Idempotency-Keys.
 *
 * @example
 * const stop = await startLaunchWorker({ boss, sql, config, log });
 */
export async function startLaunchWorker(
  p: StartLaunchWorkerParameters,
): Promise<() => Promise<void>> {
  const ctx = sagaContext({ config: p.config, sql: p.sql, log: p.log });
  await ensureLaunchQueue(p.boss);
  await p.boss.work<{ agentId: string }>(
    LAUNCH_LIMITS.queue,
    {
      localConcurrency: LAUNCH_LIMITS.concurrency,
      pollingIntervalSeconds: JOB_LIMITS.pollingIntervalSeconds,
      // NOTIFY wakes the worker when a saga is sent; polling stays as the backstop.
      notifyPollingIntervalSeconds: JOB_LIMITS.notifyPollingIntervalSeconds,
    },
    async ([job]) => {
      if (job) await runSaga(ctx, job.data.agentId);
    },
  );
  let sweeps = 0;
  const sweep = startTicker({
    everyMs: LAUNCH_LIMITS.sweepEveryMs,
    tick: async () => {
      for (const agentId of await orphanedSagas(p.sql)) {
        p.log.info({ agentId }, "resuming launch saga");
        await enqueueSaga(p.boss, agentId);
      }
      if (++sweeps % LAUNCH_LIMITS.statusSyncEverySweeps === 0)
        await syncAgentStatus(p.sql, p.config.VIEWS_SCHEMA);
    },
    onError: (error) => p.log.warn({ err: error }, "launch sweep failed"),
  });
  // Wallets of agents not launched yet, on their own ticker: a slow signer must not hold up
  // the resumption of orphaned sagas.
  const prepare = startTicker({
    everyMs: LAUNCH_LIMITS.sweepEveryMs,
    tick: () => prepareWallets(ctx),
    onError: (error) => p.log.warn({ err: error }, "wallet preparation sweep failed"),
  });
  const stopPrune = await scheduleRetention(p, idempotencyRetention);
  return async () => {
    await Promise.all([sweep.stop(), prepare.stop(), stopPrune()]);
    await p.boss.offWork(LAUNCH_LIMITS.queue);
  };
}
