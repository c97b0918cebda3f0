import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Config, ConfigError } from "../config.ts";

/**
 * The database a role connects to: DATABASE_URL when set, else the embedded Postgres that
 * `launchpad start` runs for the same data directory (so a role started by hand beside it
 * shares its database).
 */
export function resolveDatabaseUrl(config: Config): string {
  if (config.DATABASE_URL) return config.DATABASE_URL;
  try {
    const pid = Number(readFileSync(join(config.dataDir, "run", "postgres.pid"), "utf8"));
    process.kill(pid, 0);
    const { port, password } = JSON.parse(
      readFileSync(join(config.dataDir, "postgres.json"), "utf8"),
    ) as { port: number; password: string };
    return `postgres://launchpad:${password}@127.0.0.1:${port}/launchpad`;
  } catch {
    throw new ConfigError(
      "DATABASE_URL",
      `not set, and no embedded Postgres runs for ${config.dataDir}: set it, or use \`launchpad start\``,
    );
  }
}
