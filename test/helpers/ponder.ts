import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import { devnetEnv } from "../../devnet/config.ts";
import { loadConfig } from "../../lib/config.ts";
import { pipeLines } from "../../lib/lines.ts";
import { freePort } from "../../lib/local/net.ts";
import { ROOT } from "./cli.ts";

/** Ponder's CLI entry (ponder exports only its ESM index; the CLI sits beside it). */
export const PONDER_BIN = join(
  dirname(fileURLToPath(import.meta.resolve("ponder"))),
  "bin",
  "ponder.js",
);

export type PonderRun = {
  child: ChildProcess;
  /** Ponder's HTTP port (/health, /ready, /metrics). */
  port: number;
  schema: string;
  output: () => string;
  /** Latest indexed block, or -1 before the first checkpoint. */
  indexedBlock: () => Promise<number>;
  /** Resolves once the index has reached `block` (and Ponder reports ready). */
  waitFor: (block: number, timeoutMs?: number) => Promise<void>;
  kill: (signal?: NodeJS.Signals) => Promise<void>;
};

/**
 * Runs `ponder start` (the project's config, schema and src/) into `schema` as the indexer role
 * does, against the devnet described by `dataDir`'s deployment record.
 */
export async function startPonder(p: {
  databaseUrl: string;
  dataDir: string;
  devnetPort: number;
  schema: string;
  viewsSchema?: string;
  /** Ponder's log level (default warn); benches read `info` lines for Ponder's own timings. */
  logLevel?: "warn" | "info" | "debug";
  /** Extra node flags, e.g. `--cpu-prof` for a profile of the indexing process. */
  nodeArgs?: string[];
  /**
   * Subscribe to new heads over the devnet's WebSocket, as on a devnet that mines on its own
   * (lib/chain.ts). Off by default: the tests' chains automine, so a head comes only with a
   * transaction and Ponder would not read the blocks before its start until the next one.
   */
  ws?: boolean;
  /** The chain through this URL instead of the devnet's (a provider-profile proxy): as BSC. */
  rpcUrl?: string;
}): Promise<PonderRun> {
  const port = await freePort();
  const args = [...(p.nodeArgs ?? []), PONDER_BIN, "--log-format", "json"];
  args.push("--log-level", p.logLevel ?? "warn", "start");
  args.push("--schema", p.schema, "--port", String(port));
  if (p.viewsSchema) args.push("--views-schema", p.viewsSchema);
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATABASE_URL: p.databaseUrl,
    LAUNCHPAD_DATA_DIR: p.dataDir,
    DEVNET_PORT: String(p.devnetPort),
    PORT: String(port),
    DEVNET_BLOCK_TIME: p.ws ? "1" : "0",
    BSC_RPC_URL: p.rpcUrl,
  };
  // As the CLI does: the devnet's deployment record reaches ponder.config.ts as configuration.
  Object.assign(env, devnetEnv(loadConfig(env, ROOT)));
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const onLine = (line: string) => {
    out += `${line}\n`;
  };
  pipeLines(child.stdout, onLine);
  pipeLines(child.stderr, onLine);
  const sql = postgres(p.databaseUrl, { max: 1, onnotice: () => {} });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const indexedBlock = async () => {
    const rows = await sql<{ b: string }[]>`
      select substring(latest_checkpoint, 27, 16)::bigint as b
      from ${sql(p.schema)}._ponder_checkpoint`.catch(() => []);
    return rows[0] ? Number(rows[0].b) : -1;
  };
  const ready = async () => {
    const res = await fetch(`http://127.0.0.1:${port}/ready`).catch(() => undefined);
    return res?.status === 200;
  };
  return {
    child,
    port,
    schema: p.schema,
    output: () => out,
    indexedBlock,
    waitFor: async (block, timeoutMs = 120_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`ponder exited:\n${out.slice(-4000)}`);
        if ((await indexedBlock()) >= block && (await ready())) return;
        if (Date.now() > deadline)
          throw new Error(`ponder did not reach ${block}:\n${out.slice(-4000)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    kill: async (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill(signal);
        await exited;
      }
      await sql.end({ timeout: 1 });
    },
  };
}
