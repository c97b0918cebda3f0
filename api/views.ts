import { isMissingRelation } from "../lib/db/views.ts";
import { HttpError } from "./errors.ts";
import { INDEX_NOT_READY_RETRY_SECONDS } from "./limits.ts";

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
