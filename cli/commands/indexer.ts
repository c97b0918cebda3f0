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
import {
  type BlockAsked,
  blockAskedInLog,
  blockIsGone,
  healSyncGaps,
  type SyncChain,
} from "../../lib/indexer/sync-gaps.ts";
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

      // The chains as Ponder names them (ponder.config.ts), for the sync-cache check.
      const syncChains: SyncChain[] = [
        { name: "bsc", chainId: chain.chainId, rpcUrl: chain.rpcUrls[0] as string },
      ];
      if (arbitrum)
        syncChains.push({ name: "arbitrum", chainId: arbitrum.chainId, rpcUrl: arbitrum.rpcUrl });
      // A block Ponder asks for that a restored devnet no longer has: checked once, then Ponder
      // is restarted past it (blocks already handled are not restarted for again).
      const goneHandled = new Set<string>();
      let checkingGone = false;
      const onBlockAsked = async (m: BlockAsked) => {
        const c = syncChains.find((x) => x.name === m.chain);
        const key = `${m.chain}:${m.block}`;
        if (!c || checkingGone || goneHandled.has(key) || stopping || switching) return;
        checkingGone = true;
        try {
          if (!(await blockIsGone(c.rpcUrl, m.block))) return;
          goneHandled.add(key);
          log.warn(
            { chain: m.chain, block: m.block },
            `ponder asks ${m.chain} for block ${m.block}, which the chain no longer has (a devnet restarted from its state file keeps only recent empty blocks; on a live chain, a reorg): restarting ponder from its cache`,
          );
          switching = true;
          await stopPonder(child);
          switching = false;
          await run();
        } finally {
          checkingGone = false;
        }
      };

      const run = async () => {
        let buildChanged = false;
        const current = deployment;
        // A devnet restored from its state file may lack the block where Ponder's sync cache
        // ends; Ponder would wait for it forever.
        const gaps = await healSyncGaps(sql, syncChains).catch((error: unknown) => {
          log.warn({ err: error }, "could not check Ponder's sync cache against the chain");
          return [];
        });
        for (const g of gaps)
          log.warn(
            g,
            `${g.chain}: block ${g.missingBlock}, where Ponder's sync cache ends, is not on the chain (a devnet restarted from its state file keeps only recent empty blocks): re-syncing ${g.chain} from block ${g.resyncFrom}`,
          );
        log.info({ ...current, views: config.VIEWS_SCHEMA }, "starting ponder");
        const c = spawnPonder({
          config,
          databaseUrl,
          deployment: current,
          port: config.PONDER_PORT,
          viewsSchema: config.VIEWS_SCHEMA,
          onLine: (line) => {
            if (line.includes("previously used by a different Ponder app")) buildChanged = true;
            const asked = blockAskedInLog(line);
            if (asked) void onBlockAsked(asked);
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
              await run();
            })();
            return;
          }
          log.error({ code, signal }, "ponder exited");
          process.exit(code ?? 1);
        });
      };
      await run();
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
        await run();
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
