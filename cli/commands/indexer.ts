import type { ChildProcess } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Command } from "commander";
import { resolveArbitrum } from "../../lib/arbitrum.ts";
import { resolveChain } from "../../lib/chain.ts";
import { createSql } from "../../lib/db/client.ts";
import { migrate } from "../../lib/db/migrate.ts";
import { resolveDatabaseUrl } from "../../lib/db/url.ts";
import { startHeartbeat } from "../../lib/heartbeat/instances.ts";
import {
  dropDeployment,
  liveDeployment,
  nextSchemaName,
  setLiveDeployment,
} from "../../lib/indexer/deployment.ts";
import { resetIndexIfChainChanged } from "../../lib/indexer/identity.ts";
import { rpcHeadNumber, startLagTracking } from "../../lib/indexer/lag.ts";
import {
  ponderErrorInLog,
  releasePonderLock,
  spawnPonder,
  stopPonder,
  waitForPonder,
} from "../../lib/indexer/ponder.ts";
import {
  type BlockAsked,
  blockAskedInLog,
  blockIsGone,
  healSyncGaps,
  type SyncChain,
} from "../../lib/indexer/sync-gaps.ts";
import { LOG_LIMITS } from "../../lib/limits.ts";
import { errorThrottle } from "../../lib/log-throttle.ts";
import { createLogger } from "../../lib/logger.ts";
import { secretUrlRedactor, secretUrlsOf } from "../../lib/secret-urls.ts";
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
      const log = createLogger("indexer", config.LOG_LEVEL, {
        secretUrls: secretUrlsOf(config),
      });
      const databaseUrl = resolveDatabaseUrl(config);
      // Ponder's own lines are relayed as they are written: its errors name the RPC URL.
      const redact = secretUrlRedactor([...secretUrlsOf(config), databaseUrl]);
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

      const ponderPidPath = join(config.dataDir, "run", "ponder.pid");
      const writePonderPid = (pid: number | undefined) => {
        if (!pid) return;
        try {
          mkdirSync(dirname(ponderPidPath), { recursive: true });
          writeFileSync(ponderPidPath, String(pid));
        } catch (error) {
          log.warn({ err: error }, "could not write Ponder's pid file");
        }
      };
      let deployment = await liveDeployment(sql);
      let child: ChildProcess | undefined;
      let stopping = false;
      let switching = false;
      // Ponder answered once: from then on its exit is a fault to wait out, not a bad setup.
      let answered = false;
      let ponderStartedAt = 0;
      // Between a Ponder's exit and the next start (its back-off, a database outage): the
      // watchdog must not restart the role for a stall the role is already waiting out.
      let ponderWaiting = false;
      let backoffMs: number = CLI_LIMITS.ponderRestartFirstMs;
      // The lock of the last Ponder that exited, cleared before the next one starts.
      let lockReleased: Promise<void> = Promise.resolve();

      // The chains as Ponder names them (ponder.config.ts), for the sync-cache check.
      const syncChains: SyncChain[] = [
        { name: "bsc", chainId: chain.chainId, rpcUrl: chain.rpcUrls[0] as string },
      ];
      if (arbitrum)
        syncChains.push({ name: "arbitrum", chainId: arbitrum.chainId, rpcUrl: arbitrum.rpcUrl });
      // A block Ponder asks for that a restored devnet no longer has: checked, then Ponder is
      // restarted past it. The same block again within `goneAgainMs` is left alone (the line
      // repeats while Ponder retries); later it means the restart did not get past it, so Ponder
      // is restarted again rather than left asking forever.
      const goneHandled = new Map<string, number>();
      let checkingGone = false;
      const onBlockAsked = async (m: BlockAsked) => {
        const c = syncChains.find((x) => x.name === m.chain);
        const key = `${m.chain}:${m.block}`;
        const handledAt = goneHandled.get(key);
        const recent = handledAt !== undefined && Date.now() - handledAt < CLI_LIMITS.goneAgainMs;
        if (!c || checkingGone || recent || stopping || switching) return;
        checkingGone = true;
        try {
          if (!(await blockIsGone(c.rpcUrl, m.block))) return;
          goneHandled.set(key, Date.now());
          log.warn(
            { chain: m.chain, block: m.block },
            `ponder asks ${m.chain} for block ${m.block}, which the chain no longer has (a devnet restarted from its state file keeps only recent empty blocks; on a live chain, a reorg): restarting ponder from its cache`,
          );
          switching = true;
          await stopPonder(child);
          switching = false;
          await run(`past ${m.chain} block ${m.block}`);
        } finally {
          checkingGone = false;
        }
      };

      // Ponder logs every failed query of a database outage: its errors are summed up per cause
      // like the role's own (lib/log-throttle.ts).
      const ponderErrors = errorThrottle({
        intervalMs: LOG_LIMITS.errorIntervalMs,
        summary: (s) =>
          log.warn(
            { cause: s.cause, errors: s.errors, sites: s.sites },
            `ponder: ${s.cause}: ${s.errors} more errors in the last ${Math.round(s.intervalMs / 1000)} s`,
          ),
      });

      // One start at a time: a second caller (a restart after an exit, past a dropped block, or
      // to a reindexed deployment) joins the start in flight instead of spawning a second Ponder
      // on the same schema, which would wait on the first one's lock.
      let starting: Promise<void> | undefined;
      const run = (again?: string): Promise<void> => {
        starting ??= startPonder(again).finally(() => {
          starting = undefined;
        });
        return starting;
      };

      const prestart = async () => {
        await lockReleased;
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
      };

      const startPonder = async (again?: string) => {
        let buildChanged = false;
        let timer: NodeJS.Timeout | undefined;
        const waited = await Promise.race([
          prestart().then(() => true),
          new Promise<false>((r) => {
            timer = setTimeout(() => r(false), CLI_LIMITS.ponderPrestartMs);
          }),
        ]);
        clearTimeout(timer);
        if (!waited)
          log.warn(
            { ms: CLI_LIMITS.ponderPrestartMs },
            "the lock release or the sync-cache check did not end in time: starting ponder anyway",
          );
        // The role may have been told to stop while this start waited (the last Ponder's lock, the
        // sync-cache check): a Ponder started now would outlive it.
        if (stopping) return;
        // Read after the wait: a reindex switch meanwhile made another deployment live.
        const current = deployment;
        if (again) log.warn({ ...current }, `starting ponder again: ${again}`);
        else log.info({ ...current, views: config.VIEWS_SCHEMA }, "starting ponder");
        ponderStartedAt = Date.now();
        ponderWaiting = false;
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
            const failed = ponderErrorInLog(line);
            if (failed && !ponderErrors.offer(failed.error, failed.msg)) return;
            process.stdout.write(`${redact(line)}\n`);
          },
        });
        child = c;
        // For the next `launchpad start` to stop this Ponder if the supervisor and this role die
        // without stopping it (a hard kill, a crash): it would hold PONDER_PORT and the schema.
        writePonderPid(c.pid);
        c.once("exit", () => {
          lockReleased = releasePonderLock(sql, current.schema).catch((error: unknown) =>
            log.warn({ err: error }, "could not clear the schema lock of the Ponder that exited"),
          );
        });
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
              await run(`reindexing into ${next.schema}`);
            })();
            return;
          }
          if (!answered) {
            // It never came up: a configuration the role cannot fix by waiting.
            log.error({ code, signal }, "ponder exited");
            process.exit(code ?? 1);
          }
          if (Date.now() - ponderStartedAt >= CLI_LIMITS.ponderStableMs)
            backoffMs = CLI_LIMITS.ponderRestartFirstMs;
          log.warn(
            { code, signal, inMs: backoffMs },
            `ponder exited (${signal ?? `code ${code}`}); starting it again once the database answers`,
          );
          void restartPonder();
        });
      };

      // Waits out a database outage of minutes: Ponder is started again only once the database
      // answers, asked after a back-off that doubles up to ponderRestartMaxMs.
      const restartPonder = async () => {
        const dead = child;
        ponderWaiting = true;
        for (;;) {
          await new Promise((r) => setTimeout(r, backoffMs));
          backoffMs = Math.min(CLI_LIMITS.ponderRestartMaxMs, backoffMs * 2);
          // A reindex switch meanwhile started the next Ponder itself.
          if (stopping || switching || child !== dead) return;
          const down = await sql`select 1`.then(
            () => undefined,
            (error: unknown) => error,
          );
          if (down === undefined) break;
          log.warn({ err: down }, "the database does not answer; ponder waits");
        }
        await run("after it exited");
      };
      await run();
      void waitForPonder(config.PONDER_PORT, "/health").then(() => {
        answered = true;
        reportReady();
      });

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
        await run(`switched to ${live.schema}`);
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
        ponderStartedAt: () => (ponderWaiting ? null : ponderStartedAt),
        onError: (error) => log.warn({ err: error }, "could not record the index's lag"),
      });

      // This process's own heartbeat (deep health names a silent indexer instance).
      const heartbeat = startHeartbeat({
        sql,
        role: "indexer",
        onError: (error) => log.warn({ err: error }, "heartbeat failed"),
      });

      // Any exit of this role (a crash, `process.exit`) takes its Ponder along: once the
      // supervisor is gone too, nothing else would stop it.
      process.on("exit", () => {
        if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      });
      onShutdown(log, async () => {
        stopping = true;
        clearInterval(watch);
        await heartbeat.stop();
        await lag.stop();
        await stopPonder(child);
        rmSync(ponderPidPath, { force: true });
        await lockReleased;
        await sql.end({ timeout: 5 });
      });
    });
}
