import { type Config, ConfigError } from "../config.ts";
import { embeddedPostgresRuns, embeddedPostgresUrl } from "../local/postgres/embedded.ts";

/**
 * The database a role connects to: DATABASE_URL when set, else the embedded Postgres that
 * `launchpad start` runs for the same data directory (so a role started by hand beside it
 * shares its database).
 */
export function resolveDatabaseUrl(config: Config): string {
  if (config.DATABASE_URL) return config.DATABASE_URL;
  const url = embeddedPostgresUrl(config.dataDir);
  if (url && embeddedPostgresRuns(config.dataDir)) return url;
  throw new ConfigError(
    "DATABASE_URL",
    `not set, and no embedded Postgres runs for ${config.dataDir}: set it, or use \`launchpad start\``,
  );
}
