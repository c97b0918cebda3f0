import type { Sql } from "../../lib/db/client.ts";
import type { WeightBudget } from "../../lib/pollers/budget.ts";
import { POLLER_LIMITS } from "../limits.ts";
import type { PerpsPollContext } from "./perps.ts";
import { PERPS_WEIGHT } from "./perps-venue.ts";
import { type Candidate, pickAgents, pollerCandidates, roundAllowance } from "./schedule.ts";

const L = POLLER_LIMITS.perps;
const ROUND = PERPS_WEIGHT.state + PERPS_WEIGHT.fills + PERPS_WEIGHT.ledger;

/**
 * How often each account's fills and ledger are swept, changed or not, so that every sweep of
 * every account fits `sweepPlanShare` of the budget: at least `floorMs`, longer with more
 * accounts (1,000 accounts at 900 a minute: about every 3 hours).
 */
export function sweepPeriodMs(accounts: number, b: WeightBudget, floorMs: number): number {
  const perWindow = (b.limit * L.sweepPlanShare) / ROUND;
  return Math.max(floorMs, Math.ceil((accounts / perWindow) * b.windowMs));
}

/**
 * Whom this round of the perps poller polls (docs/pollers.md "Who is polled when"): the agents
 * with a perps wallet, most urgent first, as many as `planShare` of the budget's pace for one
 * round pays for, at 2 an account (its clearinghouse state; an account's first poll too) or 42
 * when its sweep is due. The
 * rest of the pace is left for fills and ledger read after a change (they claim the head of the
 * line when refused). Sets the context's sweep period for the accounts now registered.
 *
 * @example
 * const agents = await perpsRound(ctx, { roundMs: 10_000, sweepFloorMs: 60_000 });
 */
export async function perpsRound(
  c: PerpsPollContext,
  o: { roundMs: number; sweepFloorMs: number; now?: number },
): Promise<string[]> {
  const rows = await c.sql<{ agent_id: string; address: string; since: Date }[]>`
    select agent_id, address, min(created_at) as since from app.agent_wallets
    where role = 'perps' group by agent_id, address order by agent_id, address`;
  const targets = new Map<string, string[]>();
  const since = new Map<string, number>();
  for (const r of rows) {
    targets.set(r.agent_id, [...(targets.get(r.agent_id) ?? []), r.address]);
    since.set(r.agent_id, Math.min(since.get(r.agent_id) ?? Infinity, r.since.getTime()));
  }
  const b = c.pacing.budget;
  c.sweepEveryMs = sweepPeriodMs(rows.length, b, o.sweepFloorMs);
  const agents = [...targets].map(([agentId, t]) => ({ agentId, targets: t }));
  const known = await pollerCandidates(c.sql, "perps", agents);
  const now = o.now ?? Date.now();
  const candidates: Candidate[] = agents.map((a) => {
    const k = known.get(a.agentId);
    const cost = a.targets.reduce((sum, t) => {
      const cursor = k?.cursors[t] ?? {};
      const seenAt = typeof cursor.fullAt === "number" ? cursor.fullAt : cursor.firstAt;
      // Never polled: a cheap first read (jobs/pollers/perps.ts).
      const due = typeof seenAt === "number" && now - seenAt >= c.sweepEveryMs;
      return sum + (due ? ROUND : PERPS_WEIGHT.state);
    }, 0);
    return {
      agentId: a.agentId,
      refreshedAt: k?.refreshedAt ?? null,
      since: since.get(a.agentId),
      watched: k?.watched ?? false,
      cost,
    };
  });
  const { allowance, free } = await roundAllowance(c.sql, b, o.roundMs);
  return pickAgents(candidates, {
    now,
    allowance: Math.floor(allowance * L.planShare),
    free,
    minIntervalMs: o.roundMs / 2,
    watchedBoost: POLLER_LIMITS.watchedBoost,
  }).map((p) => p.agentId);
}

/**
 * Whom this round of the social poller polls: of `agents` (handles X takes), the most urgent, one
 * timeline request each, as many as the tier's timeline window paces for one round.
 *
 * @example
 * const agents = await socialRound(sql, ids, timelineBudget, { roundMs: 300_000 });
 */
export async function socialRound(
  sql: Sql,
  agents: readonly { agentId: string; handle: string; since: number }[],
  timelines: WeightBudget,
  o: { roundMs: number; now?: number },
): Promise<string[]> {
  const known = await pollerCandidates(
    sql,
    "social",
    agents.map((a) => ({ agentId: a.agentId, targets: [a.handle.toLowerCase()] })),
  );
  const candidates: Candidate[] = agents.map((a) => ({
    agentId: a.agentId,
    refreshedAt: known.get(a.agentId)?.refreshedAt ?? null,
    since: a.since,
    watched: known.get(a.agentId)?.watched ?? false,
    cost: 1,
  }));
  const { allowance, free } = await roundAllowance(sql, timelines, o.roundMs);
  return pickAgents(candidates, {
    now: o.now ?? Date.now(),
    allowance,
    free,
    minIntervalMs: o.roundMs / 2,
    watchedBoost: POLLER_LIMITS.watchedBoost,
  }).map((p) => p.agentId);
}

/**
 * Whom this round of the Safe poller polls: of the agents with a treasury Safe, the most urgent,
 * one request each (a page; a busier Safe's further pages wait their turn like any request), as
 * many as the budget's pace pays for over the round (4 a second, 30 s: 120). The budget's window
 * is one second, so the round does not wait for it to be free: each poll takes its request's turn
 * in the budget when it runs (jobs/pollers/safe.ts), spreading the round over its length.
 *
 * @example
 * const agents = await safeRound(sql, budget, { roundMs: 30_000 });
 */
export async function safeRound(
  sql: Sql,
  budget: WeightBudget,
  o: { roundMs: number; now?: number },
): Promise<string[]> {
  const rows = await sql<{ agent_id: string; treasury_address: string; created_at: Date }[]>`
    select agent_id, treasury_address, created_at from app.agents
    where treasury_address is not null order by agent_id`;
  const known = await pollerCandidates(
    sql,
    "safe",
    rows.map((r) => ({ agentId: r.agent_id, targets: [r.treasury_address] })),
  );
  const candidates: Candidate[] = rows.map((r) => ({
    agentId: r.agent_id,
    refreshedAt: known.get(r.agent_id)?.refreshedAt ?? null,
    since: r.created_at.getTime(),
    watched: known.get(r.agent_id)?.watched ?? false,
    cost: 1,
  }));
  const { blocked } = await roundAllowance(sql, budget, o.roundMs);
  if (blocked) return [];
  const pace = Math.floor((budget.limit * o.roundMs) / budget.windowMs);
  return pickAgents(candidates, {
    now: o.now ?? Date.now(),
    allowance: pace,
    free: pace,
    minIntervalMs: o.roundMs / 2,
    watchedBoost: POLLER_LIMITS.watchedBoost,
  }).map((p) => p.agentId);
}
