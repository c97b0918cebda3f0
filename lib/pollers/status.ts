import type { Sql } from "../db/client.ts";
import { type BudgetStatus, budgetStatus } from "./budget.ts";
import { type Cursor, POLLERS, type Poller } from "./state.ts";

/** The rate budget each poller spends, by venue (lib/pollers/budget.ts). */
export const POLLER_VENUE = {
  perps: "hyperliquid",
  safe: "safe-tx-service",
  xTimelines: "x:user-tweets",
  xLookups: "x:users-by-username",
} as const;
const venueOf = (p: Poller): string | undefined => (POLLER_VENUE as Record<string, string>)[p];

/** One polled target's pacing. */
export type TargetPace = {
  agentId: string;
  target: string;
  lastSuccessAt: string | null;
  /** Seconds between its last two successful polls: the effective period (null: fewer than two). */
  periodSeconds: number | null;
  /** Perps: seconds since its fills and ledger were last read (null: never). */
  fullReadAgeSeconds: number | null;
  /** Polls deferred since its last success (rate budget spent, or a back-off after a 429). */
  deferrals: number;
};

export type PollerStatus = {
  poller: Poller;
  targets: number;
  /** Oldest last success over its targets: the poller is at least this far behind. */
  oldestSuccessAt: string | null;
  newestSuccessAt: string | null;
  /** Seconds since the oldest last success (null: no success yet). */
  lagSeconds: number | null;
  /** Effective period over its targets: median and slowest (null: none measured yet). */
  periodSeconds: { median: number | null; max: number | null };
  /** The venue's rate budget this poller spends (null: none). */
  budget: BudgetStatus | null;
  pace: TargetPace[];
  failing: { agentId: string; target: string; error: string; at: string; failures: number }[];
};

const median = (xs: number[]) => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const round1 = (x: number) => Math.round(x * 10) / 10;

/**
 * Every poller's health for operators: last success, lag, effective period per target, the
 * venue's rate budget, and the targets failing now.
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
      cursor: Cursor;
      last_success_at: Date | null;
      last_error: string | null;
      last_error_at: Date | null;
      failures: number;
      period_ms: number | null;
      deferrals: number;
    }[]
  >`select poller, agent_id, target, cursor, last_success_at, last_error, last_error_at, failures,
      period_ms, deferrals
    from app.poller_state order by poller, agent_id, target`;
  const budgets = await budgetStatus(sql);
  const now = Date.now();
  return POLLERS.map((poller) => {
    const mine = rows.filter((r) => r.poller === poller);
    const ok = mine.map((r) => r.last_success_at?.getTime() ?? null);
    const never = ok.some((t) => t === null);
    const times = ok.filter((t): t is number => t !== null);
    const oldest = never || times.length === 0 ? null : Math.min(...times);
    const newest = times.length === 0 ? null : Math.max(...times);
    const pace = mine.map((r): TargetPace => {
      const fullAt = typeof r.cursor.fullAt === "number" ? r.cursor.fullAt : null;
      return {
        agentId: r.agent_id,
        target: r.target,
        lastSuccessAt: r.last_success_at?.toISOString() ?? null,
        periodSeconds: r.period_ms === null ? null : round1(r.period_ms / 1000),
        fullReadAgeSeconds: fullAt === null ? null : round1((now - fullAt) / 1000),
        deferrals: r.deferrals,
      };
    });
    const periods = pace.flatMap((p) => (p.periodSeconds === null ? [] : [p.periodSeconds]));
    const venue = venueOf(poller);
    return {
      poller,
      targets: mine.length,
      oldestSuccessAt: oldest === null ? null : new Date(oldest).toISOString(),
      newestSuccessAt: newest === null ? null : new Date(newest).toISOString(),
      lagSeconds: oldest === null ? null : Math.round((now - oldest) / 1000),
      periodSeconds: {
        median: median(periods),
        max: periods.length ? Math.max(...periods) : null,
      },
      budget: budgets.find((b) => b.venue === venue) ?? null,
      pace,
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
