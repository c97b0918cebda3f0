import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { startEmbeddedPostgres } from "../../../lib/local/postgres/embedded.ts";
import { descendants } from "../cli.ts";

export type StatementTime = {
  query: string;
  calls: number;
  totalMs: number;
  meanMs: number;
  rows: number;
};

/**
 * A Postgres the stack does not start (it gets DATABASE_URL, as with a managed database), here
 * on this machine, with `pg_stat_statements` loaded so the report can say where the
 * database's time goes. Its own data directory, removed on `stop` unless `keep`.
 *
 * @example
 * const pg = await startOutsidePostgres();
 * env.DATABASE_URL = pg.url;
 */
export async function startOutsidePostgres(o: { keep?: boolean } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "launchpad-outside-pg-"));
  // shared_preload_libraries takes effect at a start: set it, then start again.
  const first = await startEmbeddedPostgres({ dataDir });
  const admin = postgres(first.url, { max: 1, onnotice: () => {} });
  await admin.unsafe("alter system set shared_preload_libraries = 'pg_stat_statements'");
  await admin.end();
  await first.stop();
  const pg = await startEmbeddedPostgres({ dataDir });
  const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
  await sql.unsafe("create extension if not exists pg_stat_statements");
  return {
    url: pg.url,
    dataDir,
    /** Its processes (the postmaster and its backends), for the per-role CPU figures. */
    pids: (): number[] => {
      try {
        return descendants(Number(readFileSync(join(dataDir, "run", "postgres.pid"), "utf8")));
      } catch {
        return [];
      }
    },
    /** Forgets what was counted so far (the load's window starts now). */
    reset: async () => void (await sql.unsafe("select pg_stat_statements_reset()")),
    /** The statements that took the most of the database's time since the last reset. */
    top: async (n = 15): Promise<StatementTime[]> => {
      const rows = await sql<
        { query: string; calls: string; total: number; mean: number; rows: string }[]
      >`select query, calls, total_exec_time as total, mean_exec_time as mean, rows
        from pg_stat_statements order by total_exec_time desc limit ${n}`;
      return rows.map((r) => ({
        query: r.query.replace(/\s+/g, " ").slice(0, 300),
        calls: Number(r.calls),
        totalMs: Math.round(r.total),
        meanMs: Math.round(r.mean * 1000) / 1000,
        rows: Number(r.rows),
      }));
    },
    stop: async () => {
      await sql.end({ timeout: 5 });
      await pg.stop();
      if (!o.keep) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
