import { Command } from "commander";
import { startWorker } from "../../jobs/worker.ts";
import { loadConfig } from "../../lib/config.ts";
import { resolveDatabaseUrl } from "../../lib/db/url.ts";
import { createLogger } from "../../lib/logger.ts";
import { onShutdown, reportReady } from "../lifecycle.ts";

export function workerCommand(): Command {
  return new Command("worker")
    .description("run background jobs (pg-boss, schema `jobs`) against the shared database")
    .action(async () => {
      const config = loadConfig();
      const log = createLogger("worker", config.LOG_LEVEL);
      const worker = await startWorker({ databaseUrl: resolveDatabaseUrl(config), log, config });
      log.info("worker ready");
      reportReady();
      onShutdown(log, () => worker.stop());
    });
}
