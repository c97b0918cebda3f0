import { Command, InvalidArgumentError } from "commander";
import { resolveArbitrum } from "../../lib/arbitrum.ts";
import { resolveChain } from "../../lib/chain.ts";
import { createSql } from "../../lib/db/client.ts";
import { migrate } from "../../lib/db/migrate.ts";
import { resolveDatabaseUrl } from "../../lib/db/url.ts";
import {
  type Deployment,
  dropDeployment,
  liveDeployment,
  nextSchemaName,
  setLiveDeployment,
} from "../../lib/indexer/deployment.ts";
import { spawnPonder, stopPonder, waitForPonder } from "../../lib/indexer/ponder.ts";
import { readIndexerStatus } from "../../lib/indexer/status.ts";
import { freePort } from "../../lib/local/net.ts";
import { secretUrlRedactor, secretUrlsOf } from "../../lib/secret-urls.ts";
import { loadServiceConfig } from "../config.ts";
import { CLI_LIMITS } from "../limits.ts";

/**
 * `launchpad reindex [--from-block N]`: builds a new Ponder deployment beside the live one
 * while the API keeps serving the old data. When it has caught up, Ponder publishes its views
 * in one transaction (the atomic switch), and the new deployment is made live: a running
 * indexer role follows it within seconds and drops the old schema.
 */
export function reindexCommand(): Command {
  return new Command("reindex")
    .description(
      "rebuild the index in a new schema beside the live one, then switch the views to it",
    )
    .option(
      "--from-block <n>",
      "index only blocks >= n: nothing before n exists in the new index (default: the configured start block, a full rebuild)",
      blockNumber,
    )
    .action(async (opts: { fromBlock?: number }) => {
      const config = await loadServiceConfig();
      const databaseUrl = resolveDatabaseUrl(config);
      const sql = createSql(databaseUrl, { max: 2, appName: "launchpad-reindex" });
      await migrate(sql);
      const rpcUrl = resolveChain(config).rpcUrls[0] as string;
      const arbitrum = resolveArbitrum(config);
      const otherRpcUrls = arbitrum ? { [arbitrum.chainId]: arbitrum.rpcUrl } : undefined;
      const live = await liveDeployment(sql);
      const next: Deployment = { schema: await nextSchemaName(sql) };
      if (opts.fromBlock !== undefined) next.fromBlock = opts.fromBlock;
      const port = await freePort();
      const say = (line: string) => process.stdout.write(`${line}\n`);
      say(
        `reindexing into ${next.schema} (live: ${live.schema})${opts.fromBlock !== undefined ? ` from block ${opts.fromBlock}` : ""}`,
      );

      let events = 0;
      // Ponder's last lines, printed if it fails: its errors name the RPC URL, key and all.
      const redact = secretUrlRedactor([...secretUrlsOf(config), databaseUrl]);
      const tail: string[] = [];
      const child = spawnPonder({
        config,
        databaseUrl,
        deployment: next,
        port,
        viewsSchema: config.VIEWS_SCHEMA,
        onLine: (line) => {
          tail.push(redact(line));
          if (tail.length > 20) tail.shift();
          const count = /"event_count":(\d+)/.exec(line)?.[1];
          if (count) events += Number(count);
        },
      });
      let failed = false;
      child.once("exit", () => {
        failed = true;
      });
      const abort = async (code: number, why: string) => {
        process.stderr.write(`${why}\n`);
        await stopPonder(child);
        await dropDeployment(sql, next.schema).catch(() => {});
        await sql.end({ timeout: 1 });
        process.exit(code);
      };
      process.once(
        "SIGINT",
        () => void abort(130, "reindex cancelled; the live index is unchanged"),
      );
      process.once(
        "SIGTERM",
        () => void abort(143, "reindex cancelled; the live index is unchanged"),
      );

      const started = Date.now();
      let last = { at: started, block: 0, events: 0 };
      const progress = setInterval(async () => {
        const status = await readIndexerStatus({
          sql,
          schema: next.schema,
          rpcUrl,
          otherRpcUrls,
        }).catch(() => undefined);
        const c = status?.chains[0];
        if (!c || c.indexedBlock === null) return;
        const now = Date.now();
        const seconds = (now - last.at) / 1000;
        const blocksPerSecond = last.block ? (c.indexedBlock - last.block) / seconds : 0;
        const eventsPerSecond = (events - last.events) / seconds;
        const remaining = (c.headBlock ?? c.indexedBlock) - c.indexedBlock;
        const eta = blocksPerSecond > 0 ? `${Math.ceil(remaining / blocksPerSecond)}s` : "?";
        say(
          `  block ${c.indexedBlock} of ${c.headBlock ?? "?"}: ${Math.round(blocksPerSecond)} blocks/s, ${Math.round(eventsPerSecond)} events/s, ETA ${eta}`,
        );
        last = { at: now, block: c.indexedBlock, events };
      }, CLI_LIMITS.progressEveryMs);

      const ready = await waitForPonder(port, "/ready", () => failed);
      clearInterval(progress);
      if (!ready)
        return abort(1, `the new deployment's indexer exited; its last lines:\n${tail.join("\n")}`);

      // Ponder has published the new views; hand the deployment to the indexer role.
      await stopPonder(child);
      await setLiveDeployment(sql, next);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      say(`done in ${seconds}s (${events} events): the views now read ${next.schema}`);
      say(`a running indexer follows ${next.schema} within seconds and drops ${live.schema}`);
      await sql.end({ timeout: 5 });
    });
}

function blockNumber(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError("must be a block number");
  return n;
}
