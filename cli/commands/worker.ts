import { Command, InvalidArgumentError } from "commander";
import { startWorker, WORKER_JOBS, type WorkerJob } from "../../jobs/worker.ts";
import { ConfigError, requirePublicBaseUrl, requireSecretsKey } from "../../lib/config.ts";
import { createSql } from "../../lib/db/client.ts";
import { resolveDatabaseUrl } from "../../lib/db/url.ts";
import { startHeartbeat } from "../../lib/heartbeat/instances.ts";
import { createLogger } from "../../lib/logger.ts";
import { serveMetrics } from "../../lib/metrics/expose.ts";
import { secretUrlsOf } from "../../lib/secret-urls.ts";
import { loadServiceConfig } from "../config.ts";
import { isAddressInUse, onShutdown, reportReady, surviveLostConnections } from "../lifecycle.ts";

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
      requirePublicBaseUrl(config, "the worker writes it into each agent's on-chain identity URI");
      requireSecretsKey(config);
      const log = createLogger("worker", config.LOG_LEVEL, { secretUrls: secretUrlsOf(config) });
      surviveLostConnections(log);
      const worker = await startWorker({
        databaseUrl: resolveDatabaseUrl(config),
        log,
        config,
        jobs: o.jobs,
      });
      // The deep health check tells a dead worker from an idle one by this heartbeat, on a
      // connection of its own so busy jobs do not delay it.
      const sql = createSql(resolveDatabaseUrl(config), {
        max: 1,
        appName: "launchpad-worker-heartbeat",
      });
      const heartbeat = startHeartbeat({
        sql,
        role: "worker",
        onError: (error) => log.warn({ err: error }, "heartbeat failed"),
      });
      const metrics = config.WORKER_METRICS_PORT
        ? await serveMetrics({
            host: config.HOST,
            port: config.WORKER_METRICS_PORT,
            policy: { env: config.LAUNCHPAD_ENV, adminToken: config.ADMIN_TOKEN },
          }).catch((error: unknown) => {
            if (!isAddressInUse(error)) throw error;
            const at = `${config.HOST}:${config.WORKER_METRICS_PORT}`;
            throw new ConfigError("WORKER_METRICS_PORT", `${at} is already in use`);
          })
        : undefined;
      log.info({ metricsPort: config.WORKER_METRICS_PORT }, "worker ready");
      reportReady();
      onShutdown(log, async () => {
        await metrics?.close();
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
