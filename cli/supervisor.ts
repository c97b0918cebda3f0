import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { type Config, ConfigError, displayHost } from "../lib/config.ts";
import { checkDatabase } from "../lib/db/client.ts";
import { pipeLines } from "../lib/lines.ts";
import { isPortFree, portHolders } from "../lib/local/net.ts";
import { killStale } from "../lib/local/pidfile.ts";
import { startEmbeddedPostgres } from "../lib/local/postgres/embedded.ts";
import { redactUrl, secretUrlRedactor, secretUrlsOf } from "../lib/secret-urls.ts";
import { SUPERVISOR_LIMITS } from "./limits.ts";
import { restartDecision } from "./restart-policy.ts";
import { rpcErrorInLog, startIndexerWatchdog } from "./watchdog.ts";

const BIN = join(import.meta.dirname, "..", "bin", "launchpad.js");

/**
 * Roles the supervisor runs as child processes, each restarted when it dies: every one keeps its
 * state in Postgres (or none) and resumes where it stopped. The API too: one that died of a
 * database fault must come back as the others do, not end a service that runs for days (a
 * role that keeps dying while the service starts still ends the start: cli/restart-policy.ts).
 */
const ROLES = [
  // Local stand-ins of the external services (only when their URL is not configured).
  "steward",
  "four-meme",
  "x",
  "hyperliquid",
  "safe-tx-service",
  "indexer",
  "worker",
  "api",
  "web",
] as const;

type Role = (typeof ROLES)[number];

/** The roles this configuration runs: a stand-in only where no real service is configured. */
function activeRoles(config: Config): Role[] {
  return ROLES.filter((role) => {
    if (role === "steward") return !config.STEWARD_URL;
    if (role === "four-meme") return !config.FOUR_MEME_API_URL && config.devnet;
    if (role === "x") return !config.X_OAUTH_URL && config.LAUNCHPAD_ENV !== "production";
    if (role === "hyperliquid")
      return !config.HYPERLIQUID_API_URL && config.LAUNCHPAD_ENV !== "production";
    if (role === "safe-tx-service")
      return !config.SAFE_TX_SERVICE_URL && config.LAUNCHPAD_ENV !== "production";
    return true;
  });
}
type Managed = { role: Role; child: ChildProcess; tail: string[]; restarts: number[] };
type ReadyMessage = { type?: string };

/**
 * `launchpad start`: the whole service on one machine. Brings up Postgres (embedded unless
 * DATABASE_URL is set), the devnet (unless a BSC RPC is configured), then the indexer, worker
 * and API as child processes with their output prefixed by role. SIGINT/SIGTERM stop every
 * child in reverse order and exit 0.
 */
export async function runSupervisor(config: Config): Promise<void> {
  // The roles' loggers hide RPC keys and database passwords; a line Node prints itself (a
  // crash's stack) does not pass through them, so every line relayed here is redacted too.
  const redact = secretUrlRedactor(secretUrlsOf(config));
  const say = (role: string, line: string) => process.stdout.write(`[${role}] ${redact(line)}\n`);
  const stack: { name: string; stop: () => Promise<void> }[] = [];
  const managed = new Map<Role, Managed>();
  const ready = new Set<Role>();
  let stopping = false;

  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say("launchpad", "stopping");
    await Promise.all([...managed.values()].map((m) => stopChild(m.child)));
    for (const r of stack.reverse()) {
      await r
        .stop()
        .catch((e: unknown) => say("launchpad", `stopping ${r.name} failed: ${String(e)}`));
    }
    say("launchpad", "stopped");
    process.exit(code);
  };
  process.on("SIGINT", () => void shutdown(0));
  process.on("SIGTERM", () => void shutdown(0));

  try {
    await checkPort("PORT", config.HOST, config.PORT);
    // A Ponder whose supervisor and indexer role were killed hard still holds its port and
    // its schema: stopped (gracefully, so it unlocks the schema) before the port is checked.
    await killStale(join(config.dataDir, "run", "ponder.pid"), "ponder");
    await checkPort("PONDER_PORT", "127.0.0.1", config.PONDER_PORT);
    await checkPort("WEB_PORT", config.HOST, config.webPort);
    if (!config.STEWARD_URL) await checkPort("STEWARD_PORT", "127.0.0.1", config.STEWARD_PORT);
    if (!config.FOUR_MEME_API_URL && config.devnet)
      await checkPort("FOUR_MEME_API_PORT", "127.0.0.1", config.FOUR_MEME_API_PORT);
    if (!config.HYPERLIQUID_API_URL && config.LAUNCHPAD_ENV !== "production")
      await checkPort("HYPERLIQUID_PORT", "127.0.0.1", config.HYPERLIQUID_PORT);
    if (!config.SAFE_TX_SERVICE_URL && config.LAUNCHPAD_ENV !== "production")
      await checkPort("SAFE_TX_SERVICE_PORT", "127.0.0.1", config.SAFE_TX_SERVICE_PORT);
    // The devnet's ports are checked as its chains start (devnet/local-chain.ts): an anvil left
    // by a supervisor killed with SIGKILL is stopped there first.

    // Postgres and the devnet need nothing of each other: both start at once (a second off
    // every start). Each one that came up is on the stack, so a failure of the other stops it.
    const database = async (): Promise<string> => {
      if (config.DATABASE_URL) {
        await checkDatabase(config.DATABASE_URL).catch((e: unknown) => {
          throw new ConfigError("DATABASE_URL", `cannot connect: ${errorText(e)}`);
        });
        return config.DATABASE_URL;
      }
      const pg = await startEmbeddedPostgres({
        dataDir: config.dataDir,
        port: config.LAUNCHPAD_PG_PORT,
        onLine: (l) => say("postgres", l),
      }).catch((e: unknown) => {
        if (config.LAUNCHPAD_PG_PORT)
          throw new ConfigError("LAUNCHPAD_PG_PORT", `embedded Postgres failed: ${errorText(e)}`);
        throw e;
      });
      stack.push({ name: "postgres", stop: pg.stop });
      return pg.url;
    };
    const chain = async (): Promise<void> => {
      if (!config.devnet) return;
      // Loaded only in devnet mode: it pulls in the Solidity compiler.
      const { runDevnet } = await import("../devnet/run.ts");
      const devnet = await runDevnet({ config, log: (l) => say("devnet", l) });
      stack.push({ name: "devnet", stop: devnet.stop });
      say("devnet", `${devnet.fresh ? "new chain" : "chain restored"} at ${devnet.rpcUrl}`);
    };
    const [db, devnet] = await Promise.allSettled([database(), chain()]);
    if (db.status === "rejected") throw db.reason;
    if (devnet.status === "rejected") throw devnet.reason;
    const databaseUrl = db.value;
    if (stopping) return;

    const env = { ...process.env, DATABASE_URL: databaseUrl, LAUNCHPAD_DATA_DIR: config.dataDir };
    let started = false;
    let watchdog: ReturnType<typeof startIndexerWatchdog> | undefined;
    // The last RPC error the indexer role logged: the watchdog names it when it gives up.
    let lastRpcError: string | undefined;
    const launch = (role: Role, restarts: number[] = []) => {
      // Own process group: Ctrl-C reaches only the supervisor, which stops roles in order.
      const child = spawn(process.execPath, [BIN, role], {
        env,
        stdio: ["ignore", "pipe", "pipe", "ipc"],
        detached: true,
      });
      const m: Managed = { role, child, tail: [], restarts };
      // Every (re)start of the indexer gets the watchdog's boot grace.
      if (role === "indexer") watchdog?.reset();
      const onLine = (line: string) => {
        if (role === "indexer") lastRpcError = rpcErrorInLog(line) ?? lastRpcError;
        m.tail.push(redact(line));
        if (m.tail.length > SUPERVISOR_LIMITS.tailLines) m.tail.shift();
        say(role, line);
      };
      pipeLines(child.stdout, onLine);
      pipeLines(child.stderr, onLine);
      child.on("message", (msg: ReadyMessage) => {
        if (msg?.type === "ready") ready.add(role);
      });
      child.on("exit", (code, signal) => {
        // A role killed outright leaves its own children (the indexer's Ponder) running in its
        // process group; two Ponders on one schema corrupt the index. End the group first.
        killGroup(child.pid);
        if (stopping) return;
        const decision = restartDecision({
          started,
          restarts: m.restarts,
          now: Date.now(),
          // Crash tests (test mode only) kill the worker more often than a real failure would.
          maxRestarts:
            config.LAUNCHPAD_ENV === "test" && process.env.LAUNCHPAD_TEST_MAX_RESTARTS
              ? Number(process.env.LAUNCHPAD_TEST_MAX_RESTARTS)
              : undefined,
        });
        const how = signal ?? `code ${code}`;
        if (decision.action === "restart") {
          const { delayMs, recent } = decision;
          if (delayMs === 0) {
            say("launchpad", `${role} exited (${how}); restarting`);
            launch(role, recent);
            return;
          }
          say(
            "launchpad",
            `${role} exited (${how}), ${recent.length} times within a minute; restarting in ${delayMs / 1000} s`,
          );
          setTimeout(() => {
            if (!stopping) launch(role, recent);
          }, delayMs);
          return;
        }
        process.stderr.write(
          `\n[launchpad] ${role} exited (${how}); ${decision.reason}. Its last lines:\n${m.tail.map((l) => `  ${l}`).join("\n")}\n\n`,
        );
        void shutdown(1);
      });
      managed.set(role, m);
    };
    const roles = activeRoles(config);
    for (const role of roles) launch(role);

    await waitForReady(ready, roles, () => stopping);
    if (stopping) return;
    // Watchdog: Ponder that stopped indexing while the RPC answers gets its role restarted.
    started = true;
    watchdog = startIndexerWatchdog({
      databaseUrl,
      // Crash tests (test mode only) shorten the wait.
      stallMs:
        config.LAUNCHPAD_ENV === "test" && process.env.LAUNCHPAD_TEST_WATCHDOG_MS
          ? Number(process.env.LAUNCHPAD_TEST_WATCHDOG_MS)
          : undefined,
      restart: (reason) => {
        const indexer = managed.get("indexer");
        if (stopping || !indexer) return;
        say("launchpad", `watchdog: ${reason}; restarting the indexer`);
        stopChild(indexer.child);
      },
      giveUp: (reason) => {
        say(
          "launchpad",
          `watchdog: ${reason}, as before the last restart: not restarting the indexer again (the status stays stale until the index moves). Last RPC error: ${lastRpcError ?? "none seen"}. Check that the chain's RPC (BSC_RPC_URL, ARBITRUM_RPC_URL) answers that call; on the local devnet, \`launchpad reindex\` rebuilds the index, or delete ${config.dataDir}/devnet to start over with a new chain.`,
        );
      },
    });
    stack.push({ name: "watchdog", stop: watchdog.stop });
    process.stdout.write(startBanner(config, databaseUrl));
  } catch (error) {
    if (error instanceof ConfigError) process.stderr.write(`launchpad: ${error.message}\n`);
    else
      process.stderr.write(
        `launchpad: start failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
    await shutdown(error instanceof ConfigError ? 2 : 1);
  }
}

async function checkPort(variable: string, host: string, port: number): Promise<void> {
  if (!(await isPortFree(port, displayHost(host)))) {
    throw new ConfigError(variable, `${host}:${port} is already in use${await portHolders(port)}`);
  }
}

/** SIGKILL whatever is left of a role's process group (the role leads it: `detached`). */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // ESRCH: the group is already empty.
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), SUPERVISOR_LIMITS.stopTimeoutMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/** Waits until every role has reported ready over its IPC channel. */
async function waitForReady(
  ready: Set<Role>,
  roles: Role[],
  cancelled: () => boolean,
): Promise<void> {
  const deadline = Date.now() + SUPERVISOR_LIMITS.readyTimeoutMs;
  while (!cancelled() && roles.some((r) => !ready.has(r))) {
    if (Date.now() > deadline) {
      const missing = roles.filter((r) => !ready.has(r));
      throw new Error(`${missing.join(", ")} did not become ready in time`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * What `launchpad start` prints once the API answers: every URL of the stack.
 *
 * @example
 * process.stdout.write(startBanner(config, databaseUrl));
 */
export function startBanner(config: Config, databaseUrl: string): string {
  const rows = [
    ["Web", `${config.WEB_URL} (agent pages, launches)`],
    ["API", config.apiUrl],
    ["WebSocket", config.wsUrl],
    // Scheme, host and port only: hosted RPC URLs carry their API key in the path or query.
    [
      "RPC",
      `${config.rpcUrls.map(redactUrl).join(", ")}${config.devnet ? " (devnet, chain id 56)" : ""}`,
    ],
    ...(config.devnet
      ? [
          [
            "Arbitrum",
            `http://${config.DEVNET_HOST}:${config.ARBITRUM_DEVNET_PORT} (devnet, chain id 42161, USDC)`,
          ] as [string, string],
        ]
      : config.ARBITRUM_RPC_URL
        ? [["Arbitrum", redactUrl(config.ARBITRUM_RPC_URL)] as [string, string]]
        : []),
    ["Database", `${redactUrl(databaseUrl)}${config.DATABASE_URL ? "" : " (embedded)"}`],
    ["Indexer", `http://127.0.0.1:${config.PONDER_PORT}/status`],
    [
      "Metrics",
      `${config.apiUrl}/metrics${config.WORKER_METRICS_PORT ? `, http://127.0.0.1:${config.WORKER_METRICS_PORT}/metrics (worker)` : ""}`,
    ],
    ["Steward", config.STEWARD_URL ?? `http://127.0.0.1:${config.STEWARD_PORT} (local stand-in)`],
    [
      "Launchpad",
      config.FOUR_MEME_API_URL ??
        `http://127.0.0.1:${config.FOUR_MEME_API_PORT} (local four.meme-compatible stand-in)`,
    ],
    [
      "Perps",
      config.HYPERLIQUID_API_URL ??
        `http://127.0.0.1:${config.HYPERLIQUID_PORT} (local Hyperliquid stand-in)`,
    ],
    [
      "Safe txs",
      config.SAFE_TX_SERVICE_URL ??
        `http://127.0.0.1:${config.SAFE_TX_SERVICE_PORT} (local Safe Transaction Service stand-in)`,
    ],
    [
      "X",
      config.X_OAUTH_URL
        ? (config.X_API_URL ?? "https://api.x.com")
        : `http://127.0.0.1:${config.X_PORT} (local X API v2 stand-in)`,
    ],
    ["Data dir", config.dataDir],
    ["Limits", limitsLine(config)],
  ];
  const lines = rows.map(([k, v]) => `  ${(k ?? "").padEnd(10)} ${v}`);
  return `\nlaunchpad is up (${config.LAUNCHPAD_ENV})\n${lines.join("\n")}\n  Ctrl-C stops everything.\n\n`;
}

/** The configured rate limits; an operator who turned one off reads it here. */
export function limitsLine(config: Config): string {
  const one = (n: number, what: string, variable: string) =>
    n === 0 ? `${what} OFF (${variable}=0)` : `${n}/min ${what}`;
  return [
    one(config.RATE_LIMIT_PER_MINUTE, "per IP", "RATE_LIMIT_PER_MINUTE"),
    one(
      config.RATE_LIMIT_AUTHENTICATED_PER_MINUTE,
      "per key",
      "RATE_LIMIT_AUTHENTICATED_PER_MINUTE",
    ),
    one(config.LAUNCH_RATE_LIMIT_PER_MINUTE, "launches per key", "LAUNCH_RATE_LIMIT_PER_MINUTE"),
    one(config.RATE_LIMIT_SERVICE_PER_MINUTE, "web app reads", "RATE_LIMIT_SERVICE_PER_MINUTE"),
    one(config.WEB_RATE_LIMIT_PER_MINUTE, "pages per visitor", "WEB_RATE_LIMIT_PER_MINUTE"),
  ].join(", ");
}

function errorText(e: unknown): string {
  if (e instanceof Error) return e.message || (e as NodeJS.ErrnoException).code || e.name;
  return String(e);
}
