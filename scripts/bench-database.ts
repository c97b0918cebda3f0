import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSql, type Sql } from "../lib/db/client.ts";
import { migrate } from "../lib/db/migrate.ts";
import { startEmbeddedPostgres } from "../lib/local/postgres/embedded.ts";

/** A benchmark's knob: the environment variable `name` as a number, or `fallback`. */
export function envNumber(name: string, fallback: number): number {
  return Number(process.env[name] ?? fallback);
}

export type BenchDatabase = {
  /** The run's temporary folder (the cluster is in `postgres/` below it). */
  dataDir: string;
  url: string;
  sql: Sql;
  /** Closes the pool, stops Postgres and removes the folder. */
  stop: () => Promise<void>;
};

/**
 * A throwaway embedded Postgres with the service's schema, for one benchmark run.
 *
 * @example
 * const db = await benchDatabase("bench-api", 4);
 * try { await run(db.sql); } finally { await db.stop(); }
 */
export async function benchDatabase(name: string, max: number): Promise<BenchDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), `${name}-`));
  const pg = await startEmbeddedPostgres({ dataDir });
  const sql = createSql(pg.url, { max });
  const stop = async () => {
    await sql.end({ timeout: 1 });
    await pg.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await migrate(sql);
  } catch (error) {
    await stop();
    throw error;
  }
  return { dataDir, url: pg.url, sql, stop };
}
