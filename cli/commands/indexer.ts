import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Command } from "commander";
import { resolveChain } from "../../lib/chain.ts";
import { loadConfig } from "../../lib/config.ts";
import { createSql } from "../../lib/db/client.ts";
import { migrate } from "../../lib/db/migrate.ts";
import { resolveDatabaseUrl } from "../../lib/db/url.ts";
import { liveIndexerSchema, resetIndexIfChainChanged } from "../../lib/indexer/identity.ts";
import { pipeLines } from "../../lib/lines.ts";
import { createLogger } from "../../lib/logger.ts";
import { onShutdown } from "../lifecycle.ts";

const ROOT = join(import.meta.dirname, "..", "..");

export function ponderBin(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("ponder/package.json")), "dist", "esm", "bin", "ponder.js");
}

export function indexerCommand(): Command {
  return new Command("indexer")
    .description("run the Ponder indexer into the live deployment schema, published as views")
    .action(async () => {
      const config = loadConfig();
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
      const schema = await liveIndexerSchema(sql);
      await sql.end({ timeout: 5 });

      const args = [
        ponderBin(),
        "--log-format",
        "json",
        "--log-level",
        ponderLevel(config.LOG_LEVEL),
        "start",
        "--schema",
        schema,
        "--views-schema",
        config.VIEWS_SCHEMA,
        "--port",
        String(config.PONDER_PORT),
        "--hostname",
        "127.0.0.1",
      ];
      log.info({ schema, views: config.VIEWS_SCHEMA }, "starting ponder");
      const child = spawn(process.execPath, args, {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: databaseUrl, PONDER_TELEMETRY_DISABLED: "true" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      pipeLines(child.stdout, (line) => process.stdout.write(`${line}\n`));
      pipeLines(child.stderr, (line) => process.stderr.write(`${line}\n`));
      let stopping = false;
      child.on("exit", (code, signal) => {
        if (stopping) return;
        log.error({ code, signal }, "ponder exited");
        process.exit(code ?? 1);
      });
      onShutdown(log, async () => {
        stopping = true;
        if (child.exitCode !== null) return;
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
        await exited;
        clearTimeout(timer);
      });
    });
}

function ponderLevel(level: string): string {
  if (level === "fatal" || level === "silent") return "error";
  return level;
}
