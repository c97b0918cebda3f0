import type { Sql } from "../db/client.ts";

/** The off-chain pollers (docs/pollers.md). */
export const POLLERS = ["perps", "safe", "social"] as const;
export type Poller = (typeof POLLERS)[number];

/** One polled thing of one agent: a perps account, a Safe, an X handle. */
export type PollKey = { poller: Poller; agentId: string; target: string };
export type Cursor = Record<string, number | string | null>;

/**
 * The stored cursor of a key (empty before its first success) and the time before which
 * the source asked not to be polled (a rate limit's reset).
 *
 * @example
 * const { cursor } = await readCursor(sql, { poller: "perps", agentId, target: address });
 */
export async function readCursor(
  sql: Sql,
  k: PollKey,
): Promise<{ cursor: Cursor; notBefore: Date | null }> {
  const [r] = await sql<{ cursor: Cursor; not_before: Date | null }[]>`
    select cursor, not_before from app.poller_state
    where poller = ${k.poller} and agent_id = ${k.agentId} and target = ${k.target}`;
  return { cursor: r?.cursor ?? {}, notBefore: r?.not_before ?? null };
}

/** The later of two cursor values: numbers by value, digit strings (X ids) by length then text. */
function later(a: Cursor[string] | undefined, b: Cursor[string]): Cursor[string] {
  if (a === undefined || a === null) return b;
  if (b === null) return a;
  if (typeof a === "number" && typeof b === "number") return Math.max(a, b);
  if (typeof a === "string" && typeof b === "string" && /^\d+$/.test(a) && /^\d+$/.test(b)) {
    return BigInt(a) >= BigInt(b) ? a : b;
  }
  return b;
}

/**
 * Records a successful poll inside the caller's transaction (the one that stored its events):
 * the cursor only moves forward, field by field, so two polls of one key racing (a worker
 * presumed dead and its successor) never move it back.
 *
 * @example
 * await sql.begin(async (tx) => { await insertAgentEvents({ sql: tx, events }); await recordSuccess(tx, key, { fills: 1700000000000 }); });
 */
export async function recordSuccess(tx: Sql, k: PollKey, next: Cursor): Promise<Cursor> {
  await tx`insert into app.poller_state (poller, agent_id, target)
    values (${k.poller}, ${k.agentId}, ${k.target}) on conflict do nothing`;
  const [row] = await tx<{ cursor: Cursor }[]>`
    select cursor from app.poller_state
    where poller = ${k.poller} and agent_id = ${k.agentId} and target = ${k.target} for update`;
  const merged: Cursor = { ...(row?.cursor ?? {}) };
  for (const [key, v] of Object.entries(next)) merged[key] = later(merged[key], v);
  // period_ms: the effective period operators see (the interval between successes, deferrals
  // and failures included).
  await tx`update app.poller_state set cursor = ${tx.json(merged)}, last_attempt_at = now(),
      period_ms = (extract(epoch from now() - last_success_at) * 1000)::int,
      last_success_at = now(), failures = 0, deferrals = 0, not_before = null
    where poller = ${k.poller} and agent_id = ${k.agentId} and target = ${k.target}`;
  return merged;
}

/**
 * Records a poll put off (the venue's rate budget spent, or the poller backing off after a
 * 429): neither a success nor a failure; the cursor stays and the next tick asks again.
 */
export async function recordDeferral(sql: Sql, k: PollKey): Promise<void> {
  await sql`insert into app.poller_state (poller, agent_id, target, last_attempt_at, deferrals,
      last_deferred_at)
    values (${k.poller}, ${k.agentId}, ${k.target}, now(), 1, now())
    on conflict (poller, agent_id, target) do update set last_attempt_at = now(),
      deferrals = app.poller_state.deferrals + 1, last_deferred_at = now()`;
}

/**
 * Records a failed poll: the cursor stays, so the next tick asks again from the same point.
 * `notBefore`: the source's rate-limit reset, honoured by the next ticks.
 */
export async function recordFailure(
  sql: Sql,
  k: PollKey,
  error: unknown,
  notBefore?: Date,
): Promise<void> {
  const message = (error instanceof Error ? error.message : String(error)).slice(0, 500);
  await sql`insert into app.poller_state (poller, agent_id, target, last_attempt_at, last_error,
      last_error_at, failures, not_before)
    values (${k.poller}, ${k.agentId}, ${k.target}, now(), ${message}, now(), 1,
      ${notBefore ?? null})
    on conflict (poller, agent_id, target) do update set last_attempt_at = now(),
      last_error = excluded.last_error, last_error_at = now(),
      failures = app.poller_state.failures + 1, not_before = excluded.not_before`;
}
