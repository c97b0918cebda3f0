import { PgBoss } from "pg-boss";
import type { Config } from "../lib/config.ts";
import { createSql } from "../lib/db/client.ts";
import { migrate } from "../lib/db/migrate.ts";
import type { Logger } from "../lib/logger.ts";
import { startLaunchWorker } from "./launch/worker.ts";
import { JOB_LIMITS } from "./limits.ts";

export type StartWorkerParameters = {
  databaseUrl: string;
  log: Logger;
  /** With a configuration, the launch saga runs here too. */
  config?: Config;
};
export type StartWorkerReturnType = { boss: PgBoss; stop: () => Promise<void> };

/**
 * Starts pg-boss on the shared database (its own schema) and registers the job handlers.
 *
 * @example
 * const worker = await startWorker({ databaseUrl, log });
 * await worker.stop();
 */
export async function startWorker(p: StartWorkerParameters): Promise<StartWorkerReturnType> {
  const sql = createSql(p.databaseUrl, { max: 6, appName: "launchpad-worker" });
  await migrate(sql);
  const boss = new PgBoss({
    connectionString: p.databaseUrl,
    schema: JOB_LIMITS.schema,
    max: JOB_LIMITS.maxConnections,
    application_name: "launchpad-worker",
  });
  boss.on("error", (error: unknown) => p.log.error({ err: error }, "pg-boss error"));
  await boss.start();
  const stopLaunch = p.config
    ? await startLaunchWorker({ boss, sql, config: p.config, log: p.log })
    : undefined;
  return {
    boss,
    stop: async () => {
      await stopLaunch?.();
      await boss.stop({ graceful: true, timeout: JOB_LIMITS.stopTimeoutMs });
      await sql.end({ timeout: 5 });
    },
  };
}
