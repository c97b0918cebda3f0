import { PgBoss } from "pg-boss";
import { createPublicClient, http, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { resolveArbitrum } from "../lib/arbitrum.ts";
import type { Config } from "../lib/config.ts";
import { createSql } from "../lib/db/client.ts";
import { migrate } from "../lib/db/migrate.ts";
import type { Logger } from "../lib/logger.ts";
import { watchWorker } from "../lib/metrics/worker.ts";
import { startDividendKeeperWorker } from "./dividends/worker.ts";
import { startEventsWorker } from "./events/worker.ts";
import { startLaunchWorker } from "./launch/worker.ts";
import { JOB_LIMITS } from "./limits.ts";
import { startNavWorker } from "./nav/worker.ts";
import { startPledgeBindWorker } from "./policy/pledge-worker.ts";
import { policyAuditSources } from "./policy/sources.ts";
import { startPolicyAuditWorker } from "./policy/worker.ts";
import { startPollersWorker } from "./pollers/worker.ts";
import { startOutboundWorker } from "./webhooks/outbound/worker.ts";

/** Test mode only: `LAUNCHPAD_TEST_KILL_POINTS=inbox-batch:<n>` kills the worker in its nth batch. */
function killInBatch(config: Config | undefined): number | undefined {
  if (config?.LAUNCHPAD_ENV !== "test") return undefined;
  const m = /(?:^|,)inbox-batch:(\d+)(?:,|$)/.exec(config.LAUNCHPAD_TEST_KILL_POINTS ?? "");
  return m ? Number(m[1]) : undefined;
}

export type StartWorkerParameters = {
  databaseUrl: string;
  log: Logger;
  /** With a configuration, the launch saga and outbound webhooks run here too. */
  config?: Config;
  /** Job families to run (default all): an operator may scale the inbox consumer apart. */
  jobs?: readonly WorkerJob[];
};

export const WORKER_JOBS = ["events", "launch", "nav", "pollers", "policy", "dividends"] as const;
export type WorkerJob = (typeof WORKER_JOBS)[number];
export type StartWorkerReturnType = { boss: PgBoss; stop: () => Promise<void> };

/**
 * Starts pg-boss on the shared database (its own schema) and registers the job handlers.
 *
 * @example
 * const worker = await startWorker({ databaseUrl, log });
 * await worker.stop();
 */
export async function startWorker(p: StartWorkerParameters): Promise<StartWorkerReturnType> {
  const sql = createSql(p.databaseUrl, {
    max: p.config?.WORKER_DATABASE_POOL_SIZE ?? JOB_LIMITS.workerConnections,
    appName: "launchpad-worker",
  });
  await migrate(sql);
  const boss = new PgBoss({
    connectionString: p.databaseUrl,
    schema: JOB_LIMITS.schema,
    max: JOB_LIMITS.maxConnections,
    application_name: "launchpad-worker-pgboss",
    // One listening connection: a launch saga starts when it is sent, not at the next poll.
    useListenNotify: true,
  });
  boss.on("error", (error: unknown) => p.log.error({ err: error }, "pg-boss error"));
  await boss.start();
  const unwatch = watchWorker({ boss, sql });
  const jobs = p.jobs ?? WORKER_JOBS;
  const stopEvents = !jobs.includes("events")
    ? undefined
    : await startEventsWorker({
        boss,
        sql,
        log: p.log,
        killInBatch: killInBatch(p.config),
        viewsSchema: p.config?.VIEWS_SCHEMA,
        arbitrumBridge: p.config ? resolveArbitrum(p.config)?.bridge : undefined,
      });
  const stopLaunch =
    p.config && jobs.includes("launch")
      ? await startLaunchWorker({ boss, sql, config: p.config, log: p.log })
      : undefined;
  const rpcUrl = p.config?.rpcUrls[0];
  const stopNav =
    p.config && rpcUrl && jobs.includes("nav")
      ? await startNavWorker({ boss, sql, log: p.log, viewsSchema: p.config.VIEWS_SCHEMA, rpcUrl })
      : undefined;
  const stopPollers =
    p.config && jobs.includes("pollers")
      ? await startPollersWorker({ boss, sql, config: p.config, log: p.log })
      : undefined;
  const stopPolicy =
    p.config && jobs.includes("policy")
      ? await startPolicyAuditWorker({
          boss,
          sql,
          log: p.log,
          sources: policyAuditSources(p.config, sql),
        })
      : undefined;
  const stopPledges = jobs.includes("policy")
    ? startPledgeBindWorker({ sql, log: p.log })
    : undefined;
  const stopDividends =
    p.config?.RELAYER_PRIVATE_KEY && rpcUrl && jobs.includes("dividends")
      ? await startDividendKeeperWorker({
          boss,
          viewsSchema: p.config.VIEWS_SCHEMA,
          relayer: {
            sql,
            log: p.log,
            client: createPublicClient({ transport: http(rpcUrl) }) as PublicClient,
            relayer: privateKeyToAccount(p.config.RELAYER_PRIVATE_KEY),
            chain: { id: 56 },
          },
        })
      : undefined;
  const stopOutbound = p.config
    ? await startOutboundWorker({ boss, sql, config: p.config, log: p.log })
    : undefined;
  return {
    boss,
    stop: async () => {
      await stopOutbound?.();
      await stopDividends?.();
      await stopPledges?.();
      await stopPolicy?.();
      await stopPollers?.();
      await stopNav?.();
      await stopLaunch?.();
      await stopEvents?.();
      unwatch();
      await boss.stop({ graceful: true, timeout: JOB_LIMITS.stopTimeoutMs });
      await sql.end({ timeout: 5 });
    },
  };
}
