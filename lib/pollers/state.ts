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
  await tx`update app.poller_state set cursor = ${tx.json(merged)}, last_attempt_at = now(),
      last_success_at = now(), failures = 0, not_before = null
    where poller = ${k.poller} and agent_id = ${k.agentId} and target = ${k.target}`;
  return merged;
}

/**
 * Records a failed poll: the cursor stays, so the next tick asks again from the same point.
 * `notBefore`: the source's rate-limit reset, honoured by the next ticks.
 *
 * @example
 * await recordFailure(sql, key, error);
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

export type PollerStatus = {
  poller: Poller;
  targets: number;
  /** Oldest last success over its targets: the poller is at least this far behind. */
  oldestSuccessAt: string | null;
  newestSuccessAt: string | null;
  /** Seconds since the oldest last success (null: no success yet). */
  lagSeconds: number | null;
  failing: { agentId: string; target: string; error: string; at: string; failures: number }[];
};

/**
 * Every poller's health for operators: last success, lag, and the targets failing now.
 *
 * @example
 * const status = await pollerStatus(sql); // [{ poller: "perps", lagSeconds: 4, failing: [] }, …]
 */
export async function pollerStatus(sql: Sql): Promise<PollerStatus[]> {
  const rows = await sql<
    {
      poller: Poller;
      agent_id: string;
      target: string;
      last_success_at: Date | null;
      last_error: string | null;
      last_error_at: Date | null;
      failures: number;
    }[]
  >`select poller, agent_id, target, last_success_at, last_error, last_error_at, failures
    from app.poller_state order by poller, agent_id, target`;
  const now = Date.now();
  return POLLERS.map((poller) => {
    const mine = rows.filter((r) => r.poller === poller);
    const ok = mine.map((r) => r.last_success_at?.getTime() ?? null);
    const never = ok.some((t) => t === null);
    const times = ok.filter((t): t is number => t !== null);
    const oldest = never || times.length === 0 ? null : Math.min(...times);
    const newest = times.length === 0 ? null : Math.max(...times);
    return {
      poller,
      targets: mine.length,
      oldestSuccessAt: oldest === null ? null : new Date(oldest).toISOString(),
      newestSuccessAt: newest === null ? null : new Date(newest).toISOString(),
      lagSeconds: oldest === null ? null : Math.round((now - oldest) / 1000),
      failing: mine
        .filter((r) => r.failures > 0)
        .map((r) => ({
          agentId: r.agent_id,
          target: r.target,
          error: r.last_error ?? "",
          at: r.last_error_at?.toISOString() ?? "",
          failures: r.failures,
        })),
    };
  });
}
