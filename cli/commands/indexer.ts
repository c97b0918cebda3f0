import type { ChildProcess } from "node:child_process";
import { Command } from "commander";
import { resolveArbitrum } from "../../lib/arbitrum.ts";
import { resolveChain } from "../../lib/chain.ts";
import { createSql } from "../../lib/db/client.ts";
import { migrate } from "../../lib/db/migrate.ts";
import { resolveDatabaseUrl } from "../../lib/db/url.ts";
import {
  dropDeployment,
  liveDeployment,
  nextSchemaName,
  setLiveDeployment,
} from "../../lib/indexer/deployment.ts";
import { resetIndexIfChainChanged } from "../../lib/indexer/identity.ts";
import { rpcHeadNumber, startLagTracking } from "../../lib/indexer/lag.ts";
import { spawnPonder, stopPonder, waitForPonder } from "../../lib/indexer/ponder.ts";
import { createLogger } from "../../lib/logger.ts";
import { loadServiceConfig } from "../config.ts";
import { onShutdown, reportReady } from "../lifecycle.ts";
import { CLI_LIMITS } from "../limits.ts";
import { statusCommand } from "./indexer-status.ts";

export function indexerCommand(): Command {
  return new Command("indexer")
    .description("run the Ponder indexer into the live deployment schema, published as views")
    .addCommand(statusCommand())
    .action(async () => {
      const config = await loadServiceConfig();
      const log = createLogger("indexer", config.LOG_LEVEL);
      const databaseUrl = resolveDatabaseUrl(config);
      const sql = createSql(databaseUrl, { max: 2, appName: "launchpad-indexer" });
      await migrate(sql);
      const chain = resolveChain(config);
      await resetIndexIfChainChanged({
        sql,
        rpcUrl: chain.rpcUrls[0] as string,
        viewsSchema: config.VIEWS_SCHEMA,
        log,
      });
      // The second chain (USDC on Arbitrum) is optional; its reset drops the index the same way.
      const arbitrum = resolveArbitrum(config);
      if (arbitrum) {
        await resetIndexIfChainChanged({
          sql,
          rpcUrl: arbitrum.rpcUrl,
          viewsSchema: config.VIEWS_SCHEMA,
          log,
          metaKey: "chain.genesis.arbitrum",
        });
        log.info({ usdc: arbitrum.usdc, bridge: arbitrum.bridge }, "indexing BSC and Arbitrum");
      } else {
        log.info("ARBITRUM_RPC_URL is not set: indexing BSC only (no USDC on Arbitrum events)");
      }

      let deployment = await liveDeployment(sql);
      let child: ChildProcess | undefined;
      let stopping = false;
      let switching = false;

      const run = () => {
        let buildChanged = false;
        const current = deployment;
        log.info({ ...current, views: config.VIEWS_SCHEMA }, "starting ponder");
        const c = spawnPonder({
          config,
          databaseUrl,
          deployment: current,
          port: config.PONDER_PORT,
          viewsSchema: config.VIEWS_SCHEMA,
          onLine: (line) => {
            if (line.includes("previously used by a different Ponder app")) buildChanged = true;
            process.stdout.write(`${line}\n`);
          },
        });
        child = c;
        c.on("exit", (code, signal) => {
          if (stopping || switching || child !== c) return;
          if (buildChanged) {
            // New indexing code or schema: build it in a fresh deployment. The views keep
            // serving the old one until the new one has caught up.
            void (async () => {
              const next = { schema: await nextSchemaName(sql) };
              log.warn(
                { from: current.schema, to: next.schema },
                "indexing code changed: reindexing",
              );
              await setLiveDeployment(sql, next);
              deployment = next;
              run();
            })();
            return;
          }
          log.error({ code, signal }, "ponder exited");
          process.exit(code ?? 1);
        });
      };
      run();
      void waitForPonder(config.PONDER_PORT, "/health").then(reportReady);

      // `launchpad reindex` builds a new deployment beside this one and, once it has caught up
      // and published its views, makes it live: follow it and drop the old schema.
      const watch = setInterval(async () => {
        if (stopping || switching) return;
        const live = await liveDeployment(sql).catch(() => deployment);
        if (live.schema === deployment.schema) return;
        switching = true;
        const previous = deployment;
        log.info(
          { from: previous.schema, to: live.schema },
          "switching to the reindexed deployment",
        );
        await stopPonder(child);
        deployment = live;
        switching = false;
        run();
        await dropDeployment(sql, previous.schema).catch((error: unknown) =>
          log.warn({ err: error, schema: previous.schema }, "could not drop the old schema"),
        );
      }, CLI_LIMITS.livePollMs);

      // How far behind the head, by the wall clock: the status, the deep health check and the
      // supervisor's watchdog read it from this role's heartbeat.
      const lag = startLagTracking({
        sql,
        schema: () => deployment.schema,
        headBlock: rpcHeadNumber(chain.rpcUrls),
        onError: (error) => log.warn({ err: error }, "could not record the index's lag"),
      });

      onShutdown(log, async () => {
        stopping = true;
        clearInterval(watch);
        await lag.stop();
        await stopPonder(child);
        await sql.end({ timeout: 5 });
      });
    });
}
