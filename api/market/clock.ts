import type { Sql } from "../../lib/db/client.ts";
import { view } from "../../lib/db/views.ts";

/** Seconds in the rolling window of the 24-hour figures. */
export const DAY = 86_400;

/**
 * The chain's clock as indexed: the timestamp of the newest indexed block (unix seconds).
 * The 24-hour window and the open candle are measured on it, not on the server's clock, so every
 * figure is consistent with the trades the index holds (and a devnet's moved clock is honoured).
 * Null while Ponder has not checkpointed anything.
 *
 * @example
 * const now = await indexedNow(sql, "onchain"); // 1767225600
 */
export async function indexedNow(sql: Sql, schema: string): Promise<number | null> {
  const [r] = await sql<{ t: string | null }[]>`
    select max(substring(latest_checkpoint, 1, 10))::bigint::text as t
    from ${view(sql, schema, "_ponder_checkpoint")}`;
  return r?.t ? Number(r.t) : null;
}
