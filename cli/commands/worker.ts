import { Command, InvalidArgumentError } from "commander";
import { startWorker, WORKER_JOBS, type WorkerJob } from "../../jobs/worker.ts";
import { resolveDatabaseUrl } from "../../lib/db/url.ts";
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
      log.info("worker ready");
      reportReady();
      onShutdown(log, () => worker.stop());
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
