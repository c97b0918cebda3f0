import type { PgBoss } from "pg-boss";
import { createChainReader } from "../../lib/agents/chain-reader.ts";
import { takeNavSnapshots } from "../../lib/agents/nav.ts";
import type { Sql } from "../../lib/db/client.ts";
import type { Logger } from "../../lib/logger.ts";
import { NAV_JOB } from "../limits.ts";

export type StartNavWorkerParameters = {
  boss: PgBoss;
  sql: Sql;
  log: Logger;
  /** Schema of Ponder's published views. */
  viewsSchema: string;
  rpcUrl: string;
};

/**
 * Schedules the NAV snapshot job (pg-boss cron, one run at a time per worker) and
 * handles it. Each run stores the current hour's point once and backfills missed hours; a
 * crash mid-run loses nothing because the next run finds the absent points again.
 */
export async function startNavWorker(p: StartNavWorkerParameters): Promise<() => Promise<void>> {
  const chain = createChainReader(p.rpcUrl);
  // No singleton policy: a worker killed mid-run would hold the one slot until the job
  // expires. Runs are idempotent, and each worker takes one at a time.
  await p.boss.createQueue(NAV_JOB.queue, { expireInSeconds: NAV_JOB.expireSeconds });
  await p.boss.schedule(NAV_JOB.queue, NAV_JOB.cron, {}, { retryLimit: 0 });
  await p.boss.work(NAV_JOB.queue, { pollingIntervalSeconds: NAV_JOB.pollSeconds }, async () => {
    const r = await takeNavSnapshots({ sql: p.sql, schema: p.viewsSchema, chain });
    if (r.taken + r.backfilled + r.missing > 0) p.log.info(r, "nav snapshots");
  });
  // First point right away on start (cron's first tick can be a minute off).
  await p.boss.send(NAV_JOB.queue, {}, { retryLimit: 0 });
  return async () => {
    await p.boss.offWork(NAV_JOB.queue);
  };
}
