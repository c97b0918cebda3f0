import { setTimeout as sleep } from "node:timers/promises";
import { isLockConflict } from "../../lib/db/transient.ts";
import { isMissingRelation } from "../../lib/db/views.ts";
import { HttpError } from "../errors.ts";
import { INDEX_NOT_READY_RETRY_SECONDS, VIEW_READ_LIMITS } from "../limits.ts";

/**
 * Runs a read of the views; if they are not published yet (Ponder creates them once the first
 * backfill is done), answers 503 `unavailable` with `Retry-After` instead of a 500.
 *
 * A restarting indexer takes ACCESS EXCLUSIVE locks on its tables one by one (crash recovery
 * drops and recreates their triggers and indexes; publishing drops and recreates the views).
 * A read that joins two of them in another order can deadlock with it, and Postgres aborts
 * the read (40P01). Such a read is run again after a short pause, when the indexer's
 * transaction has moved on; if it still conflicts, the error is a 503 with `Retry-After`
 * (api/errors.ts), never a 500.
 *
 * @example
 * const rows = await readViews(() => sql`select * from ${view(sql, schema, "token")}`);
 */
export async function readViews<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      if (isLockConflict(error) && attempt < VIEW_READ_LIMITS.lockConflictRetries) {
        await sleep(VIEW_READ_LIMITS.lockConflictBackoffMs * 2 ** attempt);
        continue;
      }
      if (!isMissingRelation(error)) throw error;
      throw new HttpError("unavailable", {
        message:
          "the chain index is not published yet (first backfill still running); retry shortly",
        headers: { "Retry-After": String(INDEX_NOT_READY_RETRY_SECONDS) },
        cause: error,
      });
    }
  }
}
