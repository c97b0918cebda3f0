import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Config } from "../config.ts";
import type { Sql } from "../db/client.ts";
import { pipeLines } from "../lines.ts";
import type { Deployment } from "./deployment.ts";

const ROOT = join(import.meta.dirname, "..", "..");

/** Ponder's CLI: the package exports only its ESM entry (dist/esm/index.js); the bin sits beside it. */
export function ponderBin(): string {
  return join(dirname(fileURLToPath(import.meta.resolve("ponder"))), "bin", "ponder.js");
}

export type SpawnPonderParameters = {
  config: Config;
  databaseUrl: string;
  deployment: Deployment;
  port: number;
  /** Publish the tables as views in this schema once the backfill is done. */
  viewsSchema?: string;
  onLine: (line: string) => void;
};

/**
 * Runs `ponder start` for one deployment. Its logs are JSON lines. The deployment's start
 * block reaches ponder.config.ts through LAUNCHPAD_FROM_BLOCK (see lib/chain.ts).
 *
 * @example
 * const child = spawnPonder({ config, databaseUrl, deployment: { schema: "indexer_2" }, port, onLine });
 */
export function spawnPonder(p: SpawnPonderParameters): ChildProcess {
  const args = [
    ponderBin(),
    "--log-format",
    "json",
    "--log-level",
    ponderLevel(p.config.LOG_LEVEL),
    "start",
    "--schema",
    p.deployment.schema,
    "--port",
    String(p.port),
    "--hostname",
    "127.0.0.1",
  ];
  if (p.viewsSchema) args.push("--views-schema", p.viewsSchema);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: p.databaseUrl,
    // Ponder lets a PORT variable override --port: hand it its own port, not the API's.
    PORT: String(p.port),
  };
  delete env.LAUNCHPAD_FROM_BLOCK;
  if (p.deployment.fromBlock !== undefined)
    env.LAUNCHPAD_FROM_BLOCK = String(p.deployment.fromBlock);
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Ponder logs every live block at info: two lines a second with both chains, which buried
  // everything else `npm start` prints. The indexer's heartbeat and status carry its progress.
  const perBlock = !["debug", "trace"].includes(p.config.LOG_LEVEL);
  const onLine = (line: string) => {
    if (perBlock && isPerBlockLine(line)) return;
    p.onLine(line);
  };
  pipeLines(child.stdout, onLine);
  pipeLines(child.stderr, onLine);
  return child;
}

/** Ponder's log line for each block indexed live (JSON format). */
function isPerBlockLine(line: string): boolean {
  return line.includes('"msg":"Indexed block"');
}

/** Stops a Ponder child gracefully (it releases its schema lock), killing it after 15 s. */
export async function stopPonder(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Clears the schema lock of a Ponder that has exited, as its own shutdown means to. Ponder 0.17
 * sends that `unlock` in its shutdown sequence, but on a graceful stop it never completed within
 * Ponder's 5 s grace period (its two-connection admin pool is busy), so the next Ponder on the
 * schema waited for the lock's heartbeat to expire: 6 to 25 s at every restart of the role or of
 * Ponder. Only for a Ponder this process started and saw exit: another live
 * Ponder's lock is left alone.
 *
 * @example
 * child.once("exit", () => void releasePonderLock(sql, "indexer_1"));
 */
export async function releasePonderLock(sql: Sql, schema: string): Promise<void> {
  // A Ponder that died before it made its tables has no lock to clear.
  const [table] = await sql<{ found: boolean }[]>`
    select to_regclass(${`"${schema}"._ponder_meta`}) is not null as found`;
  if (!table?.found) return;
  await sql`
    update ${sql(schema)}._ponder_meta
    set value = jsonb_set(value, '{is_locked}', '0'::jsonb)
    where key = 'app'`;
}

/** Resolves once the Ponder on `port` answers `path` with 200 (`/health` early, `/ready` when caught up). */
export async function waitForPonder(
  port: number,
  path: "/health" | "/ready",
  cancelled = () => false,
): Promise<boolean> {
  while (!cancelled()) {
    const ok = await fetch(`http://127.0.0.1:${port}${path}`, {
      signal: AbortSignal.timeout(1_000),
    })
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

function ponderLevel(level: string): string {
  return level === "fatal" || level === "silent" ? "error" : level;
}

/**
 * The error of a Ponder log line at warn or above (JSON format), as an Error with the code it
 * logged, and the line's message; undefined for any other line. The indexer role hands these
 * to the same throttle as its own errors: Ponder logs every failed query of an outage.
 *
 * @example
 * ponderErrorInLog('{"level":40,"msg":"Failed database query","error":{"code":"ECONNREFUSED",…}}');
 * // { msg: "Failed database query", error: Error { code: "ECONNREFUSED" } }
 */
export function ponderErrorInLog(line: string): { msg: string; error: Error } | undefined {
  if (!line.startsWith("{")) return;
  try {
    const entry = JSON.parse(line) as {
      level?: number;
      msg?: string;
      error?: { message?: string; code?: string; cause?: { code?: string } };
    };
    if ((entry.level ?? 0) < 40 || !entry.error) return;
    const error = new Error(entry.error.message ?? entry.msg ?? "ponder error");
    const code = entry.error.code ?? entry.error.cause?.code;
    return { msg: entry.msg ?? "ponder error", error: Object.assign(error, code ? { code } : {}) };
  } catch {
    return;
  }
}
