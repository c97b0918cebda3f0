import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freeListenPort } from "../../lib/local/net.ts";
import { processRuns } from "../../lib/local/pidfile.ts";

export const ROOT = join(import.meta.dirname, "..", "..");
const BIN = join(ROOT, "bin", "launchpad.js");

export type CliResult = { code: number | null; stdout: string; stderr: string };

/** Runs `launchpad <args>` to completion as a user would, with a clean environment. */
export function runCli(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: cleanEnv(env) });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`launchpad ${args.join(" ")} timed out\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The test process's environment without anything that would point the CLI elsewhere. */
export function cleanEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  // NODE_EXTRA_CA_CERTS: the public world's test CA (npm test), trusted as production trusts
  // the public CAs.
  for (const k of ["PATH", "HOME", "LANG", "TMPDIR", "NODE_EXTRA_CA_CERTS"])
    if (process.env[k]) base[k] = process.env[k];
  return { ...base, LOG_LEVEL: "info", ...env };
}

/**
 * Free ports (below the ephemeral range: a stack restarted on the same ports must find them
 * free) and a fresh data directory for one instance of the service.
 */
export async function isolatedEnv(dataDir = mkdtempSync(join(tmpdir(), "launchpad-"))) {
  return {
    LAUNCHPAD_DATA_DIR: dataDir,
    PORT: String(await freeListenPort()),
    PONDER_PORT: String(await freeListenPort()),
    DEVNET_PORT: String(await freeListenPort()),
    STEWARD_PORT: String(await freeListenPort()),
    FOUR_MEME_API_PORT: String(await freeListenPort()),
    X_PORT: String(await freeListenPort()),
    HYPERLIQUID_PORT: String(await freeListenPort()),
    // The web role listens here; WEB_URL (the public URL) keeps its default.
    WEB_PORT: String(await freeListenPort()),
    SAFE_TX_SERVICE_PORT: String(await freeListenPort()),
    ARBITRUM_DEVNET_PORT: String(await freeListenPort()),
    WORKER_METRICS_PORT: String(await freeListenPort()),
  };
}

export type Stack = {
  child: ChildProcess;
  apiUrl: string;
  output: () => string;
  /** Every live process descended from the supervisor, the supervisor included. */
  tree: () => number[];
  /** Sends `signal` to the supervisor's process group (as a terminal's Ctrl-C does). */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
  /** After a failed test: stop whatever still runs (roles, Postgres, anvil), however it was left. */
  cleanup: () => Promise<void>;
};

/** Starts `launchpad start` and resolves once it printed its banner and /health answers. */
export async function startStack(env: Record<string, string>, timeoutMs = 240_000): Promise<Stack> {
  const child = spawn(process.execPath, [BIN, "start"], {
    cwd: ROOT,
    env: cleanEnv(env),
    detached: true,
  });
  let out = "";
  child.stdout?.on("data", (d) => (out += d));
  child.stderr?.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  const apiUrl = `http://127.0.0.1:${env.PORT}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`launchpad start exited early:\n${out}`);
    if (out.includes("launchpad is up")) break;
    if (Date.now() > deadline) {
      process.kill(-(child.pid as number), "SIGKILL");
      throw new Error(`launchpad start did not come up:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const pid = child.pid as number;
  return {
    child,
    apiUrl,
    output: () => out,
    tree: () => descendants(pid),
    stop: async (signal = "SIGINT") => {
      process.kill(-pid, signal);
      return exited;
    },
    cleanup: async () => {
      const tree = descendants(pid);
      if (child.exitCode === null && child.signalCode === null) {
        signal(-pid, "SIGINT");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
      }
      // Postgres and anvil run in their own process groups; a hard-killed supervisor leaves them.
      for (const p of [...tree, ...pidFiles(env.LAUNCHPAD_DATA_DIR ?? "")]) {
        if (processRuns(p)) signal(p, "SIGKILL");
      }
    },
  };
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {} // already gone
}

function pidFiles(dataDir: string): number[] {
  try {
    const dir = join(dataDir, "run");
    return readdirSync(dir).map((f) => Number(readFileSync(join(dir, f), "utf8")));
  } catch {
    return [];
  }
}

/** `root` and every live process below it, by walking /proc's parent links. */
export function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // Field 4 (ppid) follows the command name in parentheses, which may contain spaces.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] !== "Z") parent.set(pid, Number(fields[1]));
    } catch {}
  }
  const found = new Set<number>(parent.has(root) ? [root] : []);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parent) {
      if (!found.has(pid) && found.has(ppid)) {
        found.add(pid);
        grew = true;
      }
    }
  }
  return [...found];
}

/** Polls `fn` until it returns something other than undefined (errors count as undefined). */
export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
