import postgres from "postgres";
import { DB_LIMITS } from "../limits.ts";

export type Sql = postgres.Sql;

/**
 * A postgres.js client with the service's defaults: bounded connect and statement time, no
 * notices on stdout, bigint for int8 so amounts never lose precision.
 *
 * @example
 * const sql = createSql(url);
 * const [row] = await sql`select 1 as one`;
 */
export function createSql(url: string, options: { max?: number; appName?: string } = {}): Sql {
  return postgres(url, {
    max: options.max ?? DB_LIMITS.maxConnections,
    connect_timeout: DB_LIMITS.connectTimeoutSeconds,
    idle_timeout: DB_LIMITS.idleTimeoutSeconds,
    onnotice: () => {},
    types: { bigint: postgres.BigInt },
    connection: {
      application_name: options.appName ?? "launchpad",
      statement_timeout: DB_LIMITS.statementTimeoutMs,
    },
  });
}

/** Connects once and runs `select 1`, failing within the connect timeout. */
export async function checkDatabase(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, connect_timeout: 5, onnotice: () => {} });
  try {
    await sql`select 1`;
  } finally {
    await sql.end({ timeout: 1 });
  }
}
