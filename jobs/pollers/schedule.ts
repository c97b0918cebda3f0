import type { Sql } from "../../lib/db/client.ts";
import type { WeightBudget } from "../../lib/pollers/budget.ts";

/** One agent as a poller's round sees it. */
export type Candidate = {
  agentId: string;
  /** When its data was last refreshed (ms since the epoch); null: never. */
  refreshedAt: number | null;
  /** Never refreshed: since when it has had something to poll (its age grows from there). */
  since?: number;
  /** Someone is looking at it (app.watched_agents). */
  watched: boolean;
  /** What its poll is expected to take from the source's budget (weight or requests). */
  cost: number;
};

export type PickOptions = {
  now: number;
  /** What this round may spend: the budget's pace for one round, within what is free. */
  allowance: number;
  /** What the source's window has free now: a head costlier than the allowance goes on this. */
  free: number;
  /** An agent refreshed this recently is not polled again (the poller's period). */
  minIntervalMs: number;
  /** A watched agent is as urgent as an unwatched one this many times staler. */
  watchedBoost: number;
};

/**
 * A never-polled agent counts as this much older than the time since it has had something to
 * poll: it goes before every unwatched agent polled within the last 5 minutes, after a watched
 * agent polled 10 s ago (times `watchedBoost` 30), and ages like any other, so it never starves.
 */
export const NEVER_POLLED_AGE_MS = 5 * 60_000;

/** How urgent a candidate is: the age of its data, a watched agent's multiplied. */
export function urgency(c: Candidate, o: Pick<PickOptions, "now" | "watchedBoost">): number {
  const age =
    c.refreshedAt === null
      ? NEVER_POLLED_AGE_MS + Math.max(0, o.now - (c.since ?? o.now))
      : o.now - c.refreshedAt;
  return age * (c.watched ? o.watchedBoost : 1);
}

/**
 * The agents one round polls, most urgent first (docs/pollers.md "Who is polled when"): the
 * urgency is the age of an agent's data, multiplied for a watched one, so a watched agent is
 * refreshed first and more often, and an unwatched agent's urgency grows until it is the most
 * urgent: none starves. The round takes agents in that order while their cost fits the
 * allowance, and stops at the first that does not (it keeps its place at the head: cheaper
 * agents behind it do not overtake it); a head costlier than a whole round's allowance goes
 * alone when the window has it free.
 *
 * @example
 * const agents = pickAgents(candidates, { now, allowance: 150, free: 600, minIntervalMs: 10_000, watchedBoost: 10 });
 */
export function pickAgents(candidates: readonly Candidate[], o: PickOptions): Candidate[] {
  const due = candidates
    .filter((c) => c.refreshedAt === null || o.now - c.refreshedAt >= o.minIntervalMs)
    .map((c) => ({ c, u: urgency(c, o) }))
    .sort((a, b) => b.u - a.u || a.c.agentId.localeCompare(b.c.agentId));
  const picked: Candidate[] = [];
  let left = Math.min(o.allowance, o.free);
  for (const { c } of due) {
    if (c.cost <= left) {
      picked.push(c);
      left -= c.cost;
      continue;
    }
    if (picked.length === 0 && c.cost <= o.free) picked.push(c);
    break;
  }
  return picked;
}

/**
 * What a budget has free now and what one round of `roundMs` may spend of it: the budget's
 * pace (its limit spread evenly over its window), never more than is free. A budget spent in
 * bursts would leave the agents after the burst a whole window older.
 *
 * @example
 * const { allowance, free } = await roundAllowance(sql, budget, 10_000);
 */
export async function roundAllowance(
  sql: Sql,
  b: WeightBudget,
  roundMs: number,
): Promise<{ allowance: number; free: number; blocked: boolean }> {
  const [row] = await sql<{ used: number; blocked: boolean }[]>`
    select (select coalesce(sum(weight), 0)::int from app.venue_weight
        where venue = ${b.venue} and at > clock_timestamp() - ${b.windowMs} * interval '1 millisecond') as used,
      coalesce((select blocked_until > clock_timestamp() from app.venue_budget
        where venue = ${b.venue}), false) as blocked`;
  if (row?.blocked) return { allowance: 0, free: 0, blocked: true };
  const free = Math.max(0, b.limit - (row?.used ?? 0));
  const pace = Math.ceil((b.limit * roundMs) / b.windowMs);
  return { allowance: Math.min(free, pace), free, blocked: false };
}

/** Per agent: the oldest last success of its targets (null if one never succeeded), watched. */
export async function pollerCandidates(
  sql: Sql,
  poller: "perps" | "safe" | "social",
  agents: readonly { agentId: string; targets: string[] }[],
): Promise<Map<string, { refreshedAt: number | null; watched: boolean; cursors: Cursors }>> {
  const ids = agents.map((a) => a.agentId);
  const rows = await sql<
    { agent_id: string; target: string; at: Date | null; cursor: Record<string, unknown> }[]
  >`select agent_id, target, last_success_at as at, cursor from app.poller_state
    where poller = ${poller} and agent_id = any(${ids}::text[])`;
  const watched = await sql<{ agent_id: string }[]>`
    select agent_id from app.watched_agents where until > now() and agent_id = any(${ids}::text[])`;
  const seen = new Set(watched.map((w) => w.agent_id));
  const state = new Map(rows.map((r) => [`${r.agent_id} ${r.target}`, r]));
  const out = new Map<string, { refreshedAt: number | null; watched: boolean; cursors: Cursors }>();
  for (const a of agents) {
    let refreshedAt: number | null = Number.POSITIVE_INFINITY;
    const cursors: Cursors = {};
    for (const t of a.targets) {
      const r = state.get(`${a.agentId} ${t}`);
      cursors[t] = r?.cursor ?? {};
      const at = r?.at?.getTime() ?? null;
      refreshedAt = at === null || refreshedAt === null ? null : Math.min(refreshedAt, at);
    }
    if (refreshedAt === Number.POSITIVE_INFINITY) refreshedAt = null;
    out.set(a.agentId, { refreshedAt, watched: seen.has(a.agentId), cursors });
  }
  return out;
}

export type Cursors = Record<string, Record<string, unknown>>;
