import type { Sql } from "../db/client.ts";
import { DASHBOARD_LIMITS } from "../limits.ts";
import type { ChainReader } from "./chain-reader.ts";
import type { ValuationPoint } from "./holdings.ts";
import { storeRunway } from "./runway.ts";
import { type AgentValuation, indexedHead, valueAgent } from "./valuation.ts";

const NAV_LIMITS = {
  hourMs: DASHBOARD_LIMITS.navHourMs,
  maxBackfillHours: DASHBOARD_LIMITS.navMaxBackfillHours,
  maxAgentsPerRun: DASHBOARD_LIMITS.navMaxAgentsPerRun,
};

export type NavPoint = {
  t: string;
  status: "ok" | "missing";
  navUsd: string | null;
  block: string | null;
  breakdown: { agentSafe: string; hot: string; hyperliquid: string } | null;
  reason: string | null;
};

const hourOf = (ms: number) => Math.floor(ms / NAV_LIMITS.hourMs) * NAV_LIMITS.hourMs;

type SnapAgent = {
  agent_id: string;
  wallet_address: string | null;
  treasury_address: string | null;
  started_at: Date;
  perps: string | null;
  last: Date | null;
};

function breakdownOf(v: AgentValuation) {
  return {
    agentSafe: v.sources.agentSafe.totalUsd,
    hot: v.sources.hot.totalUsd,
    hyperliquid: v.sources.hyperliquid.totalUsd,
  };
}

async function store(
  sql: Sql,
  agentId: string,
  t: number,
  r: { value?: AgentValuation; reason?: string },
): Promise<boolean> {
  const rows = await sql`insert into app.nav_snapshots
      (agent_id, interval, t, status, nav_usd, breakdown, block_number, reason)
    values (${agentId}, '1h', ${new Date(t)}, ${r.value ? "ok" : "missing"},
      ${r.value?.totalUsd ?? null}, ${r.value ? sql.json(breakdownOf(r.value)) : null},
      ${r.value?.asOf.block ?? null}, ${r.reason ?? null})
    on conflict do nothing returning t`;
  return rows.length > 0;
}

export type SnapshotResult = { taken: number; backfilled: number; missing: number };

/**
 * One snapshot run: for every launched agent, the point of the current hour (valued at the
 * indexed head) and every hour it missed since its last point (valued at the last block at or
 * before that hour, from indexed history plus the chain's state at that block; an hour the
 * chain cannot serve is stored as `missing` with the reason); and, from the current point, the
 * agent's runway figures of the agent list (`storeRunway`). The clock is the indexed head's
 * block time: an hour exists once the index has reached it, and points are reproducible from
 * the chain. Points are keyed by (agent, hour) and inserted once: a rerun or a run after a
 * crash adds only what is absent.
 */
export async function takeNavSnapshots(p: {
  sql: Sql;
  schema: string;
  chain: ChainReader;
}): Promise<SnapshotResult> {
  const result: SnapshotResult = { taken: 0, backfilled: 0, missing: 0 };
  const head = await indexedHead(p.sql, p.schema);
  if (!head) return result;
  const hour = hourOf(head.time * 1000);
  // An agent's history starts at its token's creation block (chain time, like the hours).
  const agents = await p.sql<SnapAgent[]>`
    select a.agent_id, a.wallet_address, a.treasury_address,
      coalesce(to_timestamp(t.created_at::double precision), a.launched_at) as started_at,
      (select w.address from app.agent_wallets w where w.agent_id = a.agent_id and w.role = 'perps'
        order by w.created_at limit 1) as perps,
      (select max(n.t) from app.nav_snapshots n where n.agent_id = a.agent_id and n.interval = '1h') as last
    from app.agents a join ${p.sql(p.schema)}.token t on t.address = a.token_address
    where a.launched_at is not null
    order by a.agent_id limit ${NAV_LIMITS.maxAgentsPerRun}`;
  for (const a of agents) {
    const wallets = { treasury: a.treasury_address, hot: a.wallet_address, perps: a.perps };
    const value = (at: ValuationPoint) =>
      valueAgent({ sql: p.sql, schema: p.schema, chain: p.chain, wallets, at });
    // Hours strictly after the last point (or the launch hour) and before the current one.
    const first = a.last ? a.last.getTime() + NAV_LIMITS.hourMs : hourOf(a.started_at.getTime());
    const oldestValued = hour - NAV_LIMITS.maxBackfillHours * NAV_LIMITS.hourMs;
    for (let t = first; t < hour; t += NAV_LIMITS.hourMs) {
      if (t < oldestValued) {
        await store(p.sql, a.agent_id, t, { reason: "older than the backfill window" });
        result.missing++;
        continue;
      }
      try {
        const at = await p.chain.blockAt(t / 1000, head.block);
        const v = await value({ block: at.number, time: at.time, historic: true });
        if (await store(p.sql, a.agent_id, t, { value: v })) result.backfilled++;
      } catch (error) {
        const reason = `the chain could not serve this block: ${rpcReason(error)}`;
        if (await store(p.sql, a.agent_id, t, { reason })) result.missing++;
      }
    }
    const now = await value(head);
    if (await store(p.sql, a.agent_id, hour, { value: now })) result.taken++;
    // The list's runway figures move with every run, not once an hour.
    await storeRunway(p.sql, a.agent_id, now, new Date());
  }
  return result;
}

/** The node's own words (viem keeps them in `details`), on one line. */
function rpcReason(error: unknown): string {
  const e = error as { shortMessage?: string; details?: string; message?: string };
  const text = [e.shortMessage ?? e.message?.split("\n")[0], e.details].filter(Boolean).join(": ");
  return text.slice(0, 300);
}

const RANGE_DAYS = { "7d": 7, "30d": 30, all: null } as const;

/**
 * The NAV series of an agent, oldest first. `1d` rolls the hourly points up: each day's last
 * valued point (or a missing point when the day has none).
 *
 * @example
 * const points = await readNavHistory(sql, agentId, "1h", "7d", new Date());
 */
export async function readNavHistory(
  sql: Sql,
  agentId: string,
  interval: "1h" | "1d",
  range: keyof typeof RANGE_DAYS,
  now: Date,
): Promise<NavPoint[]> {
  const days = RANGE_DAYS[range];
  const since = days === null ? new Date(0) : new Date(now.getTime() - days * 86_400_000);
  type Row = {
    t: Date;
    status: "ok" | "missing";
    nav_usd: string | null;
    breakdown: NavPoint["breakdown"];
    block_number: bigint | null;
    reason: string | null;
  };
  const rows =
    interval === "1h"
      ? await sql<Row[]>`select t, status, nav_usd::text as nav_usd, breakdown, block_number, reason
          from app.nav_snapshots where agent_id = ${agentId} and interval = '1h' and t >= ${since}
          order by t`
      : await sql<Row[]>`select day as t, status, nav_usd, breakdown, block_number, reason from (
            select distinct on (date_trunc('day', n.t, 'UTC'))
              date_trunc('day', n.t, 'UTC') as day, n.status, n.nav_usd::text as nav_usd,
              n.breakdown, n.block_number, n.reason
            from app.nav_snapshots n
            where n.agent_id = ${agentId} and n.interval = '1h' and n.t >= ${since}
            -- Each day's last valued hour (a day with none gives its last missing point).
            order by date_trunc('day', n.t, 'UTC'), (n.status = 'ok') desc, n.t desc) d
          order by day`;
  return rows.map((r) => ({
    t: r.t.toISOString(),
    status: r.status,
    navUsd: r.nav_usd,
    block: r.block_number === null ? null : String(r.block_number),
    breakdown: r.breakdown,
    reason: r.reason,
  }));
}
