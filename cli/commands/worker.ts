import { Command, InvalidArgumentError } from "commander";
import { startWorker, WORKER_JOBS, type WorkerJob } from "../../jobs/worker.ts";
import { createSql } from "../../lib/db/client.ts";
import { resolveDatabaseUrl } from "../../lib/db/url.ts";
import { startHeartbeat } from "../../lib/heartbeat/index.ts";
import { createLogger } from "../../lib/logger.ts";
import { loadServiceConfig } from "../config.ts";
import { onShutdown, reportReady } from "../lifecycle.ts";

export function workerCommand(): Command {
  return new Command("worker")
    .description("run background jobs (pg-boss, schema `jobs`) against the shared database")
    .option(
      "--jobs <list>",
      `job families to run, comma-separated (${WORKER_JOBS.join(", ")}; default all)`,
      parseJobs,
    )
    .action(async (o: { jobs?: WorkerJob[] }) => {
      const config = await loadServiceConfig();
      const log = createLogger("worker", config.LOG_LEVEL);
      const worker = await startWorker({
        databaseUrl: resolveDatabaseUrl(config),
        log,
        config,
        jobs: o.jobs,
      });
      // The deep health check tells a dead worker from an idle one by this heartbeat.
      const sql = createSql(resolveDatabaseUrl(config), { max: 1, appName: "launchpad-heartbeat" });
      const heartbeat = startHeartbeat({
        sql,
        role: "worker",
        onError: (error) => log.warn({ err: error }, "heartbeat failed"),
      });
      log.info("worker ready");
      reportReady();
      onShutdown(log, async () => {
        await heartbeat.stop();
        await worker.stop();
        await sql.end({ timeout: 5 });
      });
    });
}

function parseJobs(value: string): WorkerJob[] {
  const jobs = value.split(",").map((s) => s.trim());
  for (const j of jobs) {
    if (!(WORKER_JOBS as readonly string[]).includes(j)) {
      throw new InvalidArgumentError(`unknown job family ${j}; known: ${WORKER_JOBS.join(", ")}`);
    }
  }
  return jobs as WorkerJob[];
}
