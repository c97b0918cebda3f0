import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Config } from "../config.ts";
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
