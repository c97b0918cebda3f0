import type { Sql } from "../lib/db/client.ts";
import { HttpError } from "./errors.ts";
import { INDEX_NOT_READY_RETRY_SECONDS } from "./limits.ts";

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

/**
 * Runs a read of the views; if they are not published yet (Ponder creates them once the first
 * backfill is done), answers 503 `unavailable` with `Retry-After` instead of a 500.
 *
 * @example
 * const rows = await readViews(() => sql`select * from ${view(sql, schema, "token")}`);
 */
export async function readViews<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!isMissingRelation(error)) throw error;
    throw new HttpError("unavailable", {
      message: "the chain index is not published yet (first backfill still running); retry shortly",
      headers: { "Retry-After": String(INDEX_NOT_READY_RETRY_SECONDS) },
      cause: error,
    });
  }
}
