import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSql, type Sql } from "../../lib/db/client.ts";
import { migrate } from "../../lib/db/migrate.ts";
import { startEmbeddedPostgres } from "../../lib/local/postgres/embedded.ts";

export type TestDatabase = { url: string; sql: Sql; stop: () => Promise<void> };

/**
 * A real, migrated Postgres for one test file: the embedded server in a temp directory.
 *
 * @example
 * const db = await startTestDatabase(); // afterAll(() => db.stop())
 */
export async function startTestDatabase(): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), "launchpad-api-"));
  const pg = await startEmbeddedPostgres({ dataDir });
  const sql = createSql(pg.url, { appName: "launchpad-api-test" });
  await migrate(sql);
  return {
    url: pg.url,
    sql,
    stop: async () => {
      await sql.end({ timeout: 1 });
      await pg.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
