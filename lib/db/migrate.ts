import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Sql } from "./client.ts";

const MIGRATIONS_DIR = join(import.meta.dirname, "migrations");
/** Any fixed number shared by every role: serialises concurrent migrators. */
const MIGRATION_LOCK = 7_400_001;

/**
 * Applies the numbered SQL files in `lib/db/migrations` that the database has not seen, each
 * in its own transaction, under an advisory lock so roles starting together apply each once.
 *
 * @example
 * const applied = await migrate(sql); // ["001_app.sql"]
 */
export async function migrate(sql: Sql): Promise<string[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith(".sql")).sort();
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`create schema if not exists app`;
    await tx`create table if not exists app.migrations (
      name text primary key, applied_at timestamptz not null default now())`;
    const done = new Set((await tx`select name from app.migrations`).map((r) => r.name as string));
    const applied: string[] = [];
    for (const file of files) {
      if (done.has(file)) continue;
      const text = await readFile(join(MIGRATIONS_DIR, file), "utf8");
      await tx.unsafe(text);
      await tx`insert into app.migrations (name) values (${file})`;
      applied.push(file);
    }
    return applied;
  });
}
