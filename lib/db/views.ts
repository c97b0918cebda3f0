import type { Sql } from "./client.ts";

/** Postgres codes for a relation or schema that does not exist. */
const MISSING = new Set(["42P01", "3F000"]);

/** True when a query failed because a view (or the views schema) does not exist yet. */
export function isMissingRelation(error: unknown): boolean {
  return MISSING.has((error as { code?: string } | null)?.code ?? "");
}

/**
 * A fragment naming one of Ponder's published views, identifier-escaped.
 *
 * @example
 * await sql`select * from ${view(sql, "onchain", "token")}`;
 */
export function view(sql: Sql, schema: string, name: string) {
  return sql`${sql(schema)}.${sql(name)}`;
}
