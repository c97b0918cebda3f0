import type { Sql } from "../db/client.ts";

/**
 * A venue's rate budget: at most `limit` weight in any `windowMs`, across every worker process
 * (docs/pollers.md "Rate budget"). A sliding window, not a fixed one: whatever minute the venue
 * counts, it holds at most `limit` of ours.
 */
export type WeightBudget = { venue: string; limit: number; windowMs: number };

export type Spend = { ok: true } | { ok: false; why: "budget" | "backoff" };

/**
 * Takes `weight` from the budget if this window has it, before the request is sent. One row
 * lock per venue serialises the check and the write, so concurrent jobs and several worker
 * processes never overspend together; times are the database's, one clock for all workers.
 *
 * A large spend refused (`claim`) when no one holds the line makes its `claimant` the head:
 * until it spends that much (or a window passes) others may not use the last `weight` of the
 * budget, so the weight that frees up gathers for it instead of going in small bites to
 * cheaper polls. The claimant's own smaller spends are not held back by its claim. `cap`: a
 * spend of lower priority goes only while the window's use stays under it; `optional`: a
 * refusal is not counted as a deferral (the caller does something cheaper instead).
 *
 * @example
 * if (!(await trySpend(sql, budget, 42, { claimant: key, claim: true })).ok) return "deferred";
 */
export async function trySpend(
  sql: Sql,
  b: WeightBudget,
  weight: number,
  o: { claimant?: string; claim?: boolean; cap?: number; optional?: boolean } = {},
): Promise<Spend> {
  const { claimant } = o;
  return sql.begin(async (t) => {
    const tx = t as unknown as Sql;
    await tx`insert into app.venue_budget (venue, weight_limit, window_ms)
      values (${b.venue}, ${b.limit}, ${b.windowMs}) on conflict (venue) do nothing`;
    // The row lock first, then the clock: a spender that waited for the lock books its weight
    // at the time it goes out, not when its transaction began (now()).
    const [row] = await tx<
      {
        blocked_until: Date | null;
        limit: number;
        window_ms: number;
        claim_key: string | null;
        claim_weight: number | null;
        claim_until: Date | null;
      }[]
    >`select blocked_until, weight_limit as limit, window_ms, claim_key, claim_weight, claim_until
      from app.venue_budget where venue = ${b.venue} for update`;
    const [clock] = await tx<{ at: Date }[]>`select clock_timestamp() as at`;
    const at = clock?.at ?? new Date();
    if (row && (row.limit !== b.limit || row.window_ms !== b.windowMs)) {
      // A worker with another configuration (a new release): the newest one is shown.
      await tx`update app.venue_budget set weight_limit = ${b.limit}, window_ms = ${b.windowMs}
        where venue = ${b.venue}`;
    }
    const claimed = row?.claim_until && row.claim_until > at ? row.claim_key : null;
    const refuse = async (why: "budget" | "backoff"): Promise<Spend> => {
      if (o.optional) return { ok: false, why };
      const claim = why === "budget" && o.claim && claimant && claimed === null;
      await tx`update app.venue_budget set deferred = deferred + 1,
          claim_key = ${claim ? (claimant ?? null) : (row?.claim_key ?? null)},
          claim_weight = ${claim ? weight : (row?.claim_weight ?? null)},
          claim_until = ${claim ? new Date(at.getTime() + b.windowMs) : (row?.claim_until ?? null)}
        where venue = ${b.venue}`;
      return { ok: false, why };
    };
    if (row?.blocked_until && row.blocked_until > at) return refuse("backoff");
    const from = new Date(at.getTime() - b.windowMs);
    await tx`delete from app.venue_weight where venue = ${b.venue} and at <= ${from}`;
    const [spent] = await tx<{ used: number }[]>`
      select coalesce(sum(weight), 0)::int as used from app.venue_weight
      where venue = ${b.venue}`;
    const held = claimed !== null && claimed !== claimant ? (row?.claim_weight ?? 0) : 0;
    if ((spent?.used ?? 0) + weight + held > Math.min(o.cap ?? b.limit, b.limit))
      return refuse("budget");
    await tx`insert into app.venue_weight (venue, at, weight) values (${b.venue}, ${at}, ${weight})`;
    if (claimed !== null && claimed === claimant && weight >= (row?.claim_weight ?? 0)) {
      await tx`update app.venue_budget set claim_key = null, claim_weight = null, claim_until = null
        where venue = ${b.venue}`;
    }
    return { ok: true };
  });
}

/**
 * Books weight already spent (extra weight charged by an answer's length): never refused, it
 * only makes the next requests wait.
 *
 * @example
 * await charge(sql, budget, Math.floor(fills.length / 20));
 */
export async function charge(sql: Sql, b: WeightBudget, weight: number): Promise<void> {
  if (weight <= 0) return;
  await sql`insert into app.venue_weight (venue, at, weight)
    values (${b.venue}, clock_timestamp(), ${weight})`;
}

/**
 * The venue answered 429: nothing more is sent, by any worker, for `backoffMs`; doubled (up to
 * `maxMs`) when the last 429 came within the last back-off and a window of it. The 429s of
 * requests already under way when the first arrived do not extend it.
 */
export async function rateLimited(
  sql: Sql,
  b: WeightBudget,
  o: { backoffMs: number; maxMs: number },
): Promise<void> {
  await sql`insert into app.venue_budget (venue, weight_limit, window_ms)
    values (${b.venue}, ${b.limit}, ${b.windowMs}) on conflict (venue) do nothing`;
  await sql`update app.venue_budget set
      backoff_ms = case
        when blocked_until > now() then backoff_ms
        when last_rate_limited_at > now() - (coalesce(backoff_ms, 0) + window_ms) * interval '1 millisecond'
          then least(backoff_ms * 2, ${o.maxMs})
        else ${o.backoffMs} end,
      blocked_until = case
        when blocked_until > now() then blocked_until
        when last_rate_limited_at > now() - (coalesce(backoff_ms, 0) + window_ms) * interval '1 millisecond'
          then now() + least(backoff_ms * 2, ${o.maxMs}) * interval '1 millisecond'
        else now() + ${o.backoffMs} * interval '1 millisecond' end,
      rate_limited = rate_limited + 1, last_rate_limited_at = now()
    where venue = ${b.venue}`;
}

export type BudgetStatus = {
  venue: string;
  /** Weight allowed per window, and the window. */
  limit: number;
  windowSeconds: number;
  /** Weight spent in the last window. */
  used: number;
  /** Set while the poller backs off after a 429. */
  blockedUntil: string | null;
  rateLimited: number;
  lastRateLimitedAt: string | null;
  /** Polls put off for want of budget or during a back-off, ever. */
  deferred: number;
};

/**
 * Every venue budget's use now, for operators.
 *
 * @example
 * const [hl] = await budgetStatus(sql); // { venue: "hyperliquid", used: 312, limit: 900, … }
 */
export async function budgetStatus(sql: Sql): Promise<BudgetStatus[]> {
  const rows = await sql<
    {
      venue: string;
      weight_limit: number;
      window_ms: number;
      used: number;
      blocked_until: Date | null;
      rate_limited: number;
      last_rate_limited_at: Date | null;
      deferred: string;
    }[]
  >`select b.venue, b.weight_limit, b.window_ms, b.rate_limited, b.last_rate_limited_at,
      b.deferred, case when b.blocked_until > now() then b.blocked_until end as blocked_until,
      (select coalesce(sum(w.weight), 0)::int from app.venue_weight w where w.venue = b.venue
        and w.at > now() - b.window_ms * interval '1 millisecond') as used
    from app.venue_budget b order by b.venue`;
  return rows.map((r) => ({
    venue: r.venue,
    limit: r.weight_limit,
    windowSeconds: r.window_ms / 1000,
    used: r.used,
    blockedUntil: r.blocked_until?.toISOString() ?? null,
    rateLimited: r.rate_limited,
    lastRateLimitedAt: r.last_rate_limited_at?.toISOString() ?? null,
    deferred: Number(r.deferred),
  }));
}
