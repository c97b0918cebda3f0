import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Command } from "commander";
import { resolveChain } from "../../lib/chain.ts";
import { type Config, loadConfig } from "../../lib/config.ts";
import { createSql } from "../../lib/db/client.ts";
import { migrate } from "../../lib/db/migrate.ts";
import { resolveDatabaseUrl } from "../../lib/db/url.ts";
import {
  liveIndexerSchema,
  nextIndexerSchema,
  resetIndexIfChainChanged,
} from "../../lib/indexer/identity.ts";
import { pipeLines } from "../../lib/lines.ts";
import { createLogger } from "../../lib/logger.ts";
import { onShutdown, reportReady } from "../lifecycle.ts";

const ROOT = join(import.meta.dirname, "..", "..");

export function ponderBin(): string {
  // ponder exports only its ESM entry (dist/esm/index.js); its CLI sits beside it.
  return join(dirname(fileURLToPath(import.meta.resolve("ponder"))), "bin", "ponder.js");
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
      let schema = await liveIndexerSchema(sql);

      let child: ChildProcess | undefined;
      let stopping = false;
      const run = () => {
        let buildChanged = false;
        log.info({ schema, views: config.VIEWS_SCHEMA }, "starting ponder");
        child = spawn(process.execPath, ponderArgs(config, schema), {
          cwd: ROOT,
          // Ponder lets a PORT variable override --port: hand it its own port, not the API's.
          env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(config.PONDER_PORT) },
          stdio: ["ignore", "pipe", "pipe"],
        });
        const onLine = (line: string) => {
          if (line.includes("previously used by a different Ponder app")) buildChanged = true;
          process.stdout.write(`${line}\n`);
        };
        pipeLines(child.stdout, onLine);
        pipeLines(child.stderr, onLine);
        child.on("exit", (code, signal) => {
          if (stopping) return;
          if (buildChanged) {
            // New indexing code or schema: build it in a fresh deployment schema. The views
            // keep serving the old one until the new one has caught up.
            void nextIndexerSchema(sql, schema).then((next) => {
              log.warn(
                { from: schema, to: next },
                "indexing code changed: reindexing into a new schema",
              );
              schema = next;
              run();
            });
            return;
          }
          log.error({ code, signal }, "ponder exited");
          process.exit(code ?? 1);
        });
      };
      run();
      void waitForPonder(config.PONDER_PORT).then(reportReady);

      onShutdown(log, async () => {
        stopping = true;
        const c = child;
        if (c && c.exitCode === null && c.signalCode === null) {
          const exited = new Promise((r) => c.once("exit", r));
          c.kill("SIGTERM");
          const timer = setTimeout(() => c.kill("SIGKILL"), 15_000);
          await exited;
          clearTimeout(timer);
        }
        await sql.end({ timeout: 5 });
      });
    });
}

function ponderArgs(config: Config, schema: string): string[] {
  return [
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
}

/** Resolves once Ponder's HTTP server answers (it serves /health from its first seconds). */
async function waitForPonder(port: number): Promise<void> {
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/health`, {
      signal: AbortSignal.timeout(1_000),
    })
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 250));
  }
}

function ponderLevel(level: string): string {
  if (level === "fatal" || level === "silent") return "error";
  return level;
}
