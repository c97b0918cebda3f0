import type { Sql } from "../db/client.ts";
import { type AgentEventRow, insertAgentEvents } from "../events/store.ts";
import { PLEDGE_LIMITS } from "../limits.ts";
import type { PolicyActor } from "./model.ts";
import {
  bpsToPercent,
  type PledgeVersion,
  pendingPledge,
  planSave,
  pledgeInForce,
  type Terms,
} from "./pledge.ts";

/** The `source` of the events the pledge writes. */
const PLEDGE_SOURCE = "pledge";

/** The terms of a version as its events carry them. */
const termsData = (pledgeId: string, t: Terms, effectiveAt: Date) => ({
  pledgeId,
  lockDays: t.lockDays,
  maxDailySellPercent: bpsToPercent(t.maxDailySellBps),
  loosenDelayDays: t.loosenDelayDays,
  effectiveAt: effectiveAt.toISOString(),
});

type Row = {
  id: string;
  lock_days: number;
  max_daily_sell_bps: number;
  loosen_delay_days: number;
  created_at: Date;
  effective_at: Date;
  cancelled_at: Date | null;
  created_by: PolicyActor;
};
const toVersion = (r: Row): PledgeVersion => ({
  id: r.id,
  lockDays: r.lock_days,
  maxDailySellBps: r.max_daily_sell_bps,
  loosenDelayDays: r.loosen_delay_days,
  createdAt: r.created_at,
  effectiveAt: r.effective_at,
  cancelledAt: r.cancelled_at,
  createdBy: r.created_by,
});

/**
 * The agent's pledge versions, newest first (at most `PLEDGE_LIMITS.historyLimit`).
 *
 * @example
 * const versions = await pledgeVersions(sql, agentId);
 */
export async function pledgeVersions(sql: Sql, agentId: string): Promise<PledgeVersion[]> {
  const rows = await sql<Row[]>`select id::text, lock_days, max_daily_sell_bps, loosen_delay_days,
      created_at, effective_at, cancelled_at, created_by
    from app.sell_pledges where agent_id = ${agentId}
    order by id desc limit ${PLEDGE_LIMITS.historyLimit}`;
  return rows.map(toVersion);
}

export type SavePledgeParameters = {
  agentId: string;
  terms: Terms;
  actor: PolicyActor;
  now: Date;
};
export type SavePledgeReturnType = { versions: PledgeVersion[] };

/**
 * Saves new terms over the pledge in force (`planSave`): a tightening binds at once, a loosening
 * after the in-force pledge's delay; a loosening still waiting is cancelled. One save per agent
 * at a time (a transaction lock); a `pledge.updated` event in the same transaction.
 *
 * @example
 * await savePledge(sql, { agentId, terms, actor: { kind: "agent", id: agentId }, now: new Date() });
 */
export async function savePledge(sql: Sql, p: SavePledgeParameters): Promise<SavePledgeReturnType> {
  return sql.begin(async (tx) => {
    const t = tx as unknown as Sql;
    await t`select pg_advisory_xact_lock(hashtextextended(${`pledge:${p.agentId}`}, 0))`;
    const before = await pledgeVersions(t, p.agentId);
    const current = pledgeInForce(before, p.now);
    const plan = planSave({ current, next: p.terms, now: p.now });
    await t`update app.sell_pledges set cancelled_at = ${p.now}
      where agent_id = ${p.agentId} and cancelled_at is null and effective_at > ${p.now}`;
    const insert = (terms: Terms, effectiveAt: Date) =>
      t<{ id: string }[]>`insert into app.sell_pledges (agent_id, lock_days, max_daily_sell_bps,
          loosen_delay_days, created_at, effective_at, created_by)
        values (${p.agentId}, ${terms.lockDays}, ${terms.maxDailySellBps}, ${terms.loosenDelayDays},
          ${p.now}, ${effectiveAt}, ${t.json(p.actor as never)}) returning id::text`;
    const events = [];
    const saves: [Terms, Date][] = [];
    if (plan.now) saves.push([plan.now, p.now]);
    if (plan.later) saves.push([plan.later.terms, plan.later.effectiveAt]);
    for (const [terms, at] of saves) {
      const [row] = await insert(terms, at);
      const id = (row as { id: string }).id;
      events.push({
        agentId: p.agentId,
        eventType: "pledge.updated",
        category: "market" as const,
        source: PLEDGE_SOURCE,
        sourceEventId: `pledge:${id}`,
        occurredAt: p.now,
        data: {
          ...termsData(id, terms, at),
          change: at > p.now ? "loosening" : "tightening",
          by: p.actor.kind,
        },
      });
    }
    await insertAgentEvents({ sql: t, events });
    return { versions: await pledgeVersions(t, p.agentId) };
  });
}

/**
 * What the agent's wallet disposed of its own token since `since` through the service.
 *
 * @example
 * const sold = await soldSince(sql, agentId, utcDayStart(now));
 */
export async function soldSince(sql: Sql, agentId: string, since: Date): Promise<bigint> {
  const [r] = await sql<{ s: string }[]>`select coalesce(sum(amount), 0)::text as s
    from app.pledge_sells where agent_id = ${agentId} and at >= ${since}`;
  return BigInt(r?.s ?? "0");
}

/** The in-force and waiting pledge at `now`, from the versions. */
export const pledgeState = (versions: readonly PledgeVersion[], now: Date) => ({
  inForce: pledgeInForce(versions, now),
  pending: pendingPledge(versions, now),
});

/**
 * A `pledge.loosened` event for every loosening whose delay has ended by `now` (an uncancelled
 * version saved to bind later: from its `effectiveAt` on it is the pledge in force), dated at
 * that moment. Each version's event has its own source event id, so however often and in however
 * many processes this runs, each is written once: a round missed (the worker down) is made up
 * by the next. Returns the events written.
 *
 * @example
 * const written = await recordBoundLoosenings(sql, new Date());
 */
export async function recordBoundLoosenings(sql: Sql, now: Date): Promise<AgentEventRow[]> {
  const due = await sql<(Row & { agent_id: string })[]>`select p.id::text, p.agent_id,
      p.lock_days, p.max_daily_sell_bps, p.loosen_delay_days, p.created_at, p.effective_at,
      p.cancelled_at, p.created_by
    from app.sell_pledges p
    where p.cancelled_at is null and p.effective_at > p.created_at and p.effective_at <= ${now}
      and not exists (select 1 from app.agent_events e where e.source = ${PLEDGE_SOURCE}
        and e.source_event_id = 'pledge:' || p.id || ':bound')
    order by p.effective_at, p.id limit ${PLEDGE_LIMITS.boundPerRound}`;
  return insertAgentEvents({
    sql,
    events: due.map((r) => {
      const v = toVersion(r);
      return {
        agentId: r.agent_id,
        eventType: "pledge.loosened",
        category: "market" as const,
        source: PLEDGE_SOURCE,
        sourceEventId: `pledge:${v.id}:bound`,
        occurredAt: v.effectiveAt,
        data: { ...termsData(v.id, v, v.effectiveAt), savedAt: v.createdAt.toISOString() },
      };
    }),
  });
}
