import type { Config } from "../lib/config.ts";
import { createSql, type Sql } from "../lib/db/client.ts";
import { migrate } from "../lib/db/migrate.ts";
import { resolveDatabaseUrl } from "../lib/db/url.ts";
import { loadServiceConfig } from "./config.ts";

/**
 * An operator command's database: the service's configuration, a pool of `max` connections,
 * the schema migrated (a command may run before any role has), and the pool closed however
 * `fn` ends.
 *
 * @example
 * await withDatabase((sql) => listAnomalies(sql), { max: 2 });
 */
export async function withDatabase<T>(
  fn: (sql: Sql, config: Config) => Promise<T>,
  options: { max?: number } = {},
): Promise<T> {
  const config = await loadServiceConfig();
  const sql = createSql(resolveDatabaseUrl(config), {
    max: options.max ?? 1,
    appName: "launchpad-cli",
  });
  try {
    await migrate(sql);
    return await fn(sql, config);
  } finally {
    await sql.end({ timeout: 5 });
  }
}
