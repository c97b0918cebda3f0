import { add, type Dec, parseDec, sub, toDecString, ZERO } from "../../lib/agents/decimal.ts";
import type { Sql } from "../../lib/db/client.ts";
import { PERPS_SOURCE } from "../../lib/pollers/sources.ts";

export const PNL_WINDOWS = ["1d", "7d", "30d", "all"] as const;
export type PnlWindow = (typeof PNL_WINDOWS)[number];

const WINDOW_MS: Record<PnlWindow, number | null> = {
  "1d": 24 * 3_600_000,
  "7d": 7 * 24 * 3_600_000,
  "30d": 30 * 24 * 3_600_000,
  all: null,
};

type Sample = { time: Date; value: string };
type Flow = { time: Date; amount: Dec };

/**
 * The PnL series of account values `samples` (oldest first) with the venue's deposits,
 * withdrawals and transfers `flows` taken out: at each sample, its value minus the first
 * sample's, minus every flow dated after the first sample and up to this one. A deposit moves
 * the account value and the flows alike, so it never shows as profit. Exact (decimal strings).
 *
 * @example
 * pnlSeries([{ time: t0, value: "100" }, { time: t1, value: "160" }],
 *   [{ time: between, amount: parseDec("50") }]); // pnl "0", then "10"
 */
export function pnlSeries(samples: readonly Sample[], flows: readonly Flow[]) {
  const first = samples[0];
  if (!first) return [];
  const base = parseDec(first.value);
  let f = 0;
  let netFlows: Dec = ZERO;
  const after = flows.filter((x) => x.time > first.time);
  return samples.map((s) => {
    while (f < after.length && (after[f] as Flow).time <= s.time) {
      netFlows = add(netFlows, (after[f] as Flow).amount);
      f++;
    }
    const value = parseDec(s.value);
    return {
      time: s.time.toISOString(),
      accountValue: toDecString(value),
      netFlows: toDecString(netFlows),
      pnl: toDecString(sub(sub(value, base), netFlows)),
    };
  });
}

/**
 * The agent's perps PnL over `window` as the answer's JSON text, from what the perps poller
 * stored: the account value the venue reported at the last poll of each hour and at the last
 * poll, and the venue's ledger of deposits and transfers in (+usdc), withdrawals and transfers
 * out (-(usdc + fee)). Built by Postgres in one round trip, byte for byte what `pnlSeries` +
 * `JSON.stringify` give (api/perps/pnl-series.test.ts holds them equal): 720 points of a 30-day
 * window cost no row objects and no decimal arithmetic here. Times compare at milliseconds, as the JavaScript
 * dates of `pnlSeries` do. `address`: the agent's perps wallet (`perpsVersion`). No points
 * without an account or a poll. `expiresAt`: when the window's oldest point leaves it, the
 * moment the answer changes by the clock alone (without a new poll); never for `all`.
 *
 * @example
 * const { json, expiresAt } = await readPnlSeriesJson(sql, { agentId, address }, "7d", new Date());
 */
export async function readPnlSeriesJson(
  sql: Sql,
  a: { agentId: string; address: string | null },
  window: PnlWindow,
  now: Date,
): Promise<{ json: string; expiresAt: number }> {
  const span = WINDOW_MS[window];
  const from = span === null ? null : new Date(now.getTime() - span);
  const head = `{"address":${JSON.stringify(a.address)},"window":"${window}","from":${JSON.stringify(from?.toISOString() ?? null)},"points":[`;
  if (!a.address) return { json: `${head}],"pnl":"0"}`, expiresAt: Infinity };
  const since = from ?? new Date(0);
  const ms = (col: string) => sql.unsafe(`date_trunc('milliseconds', ${col})`);
  const [r] = await sql<{ items: string | null; pnl: string | null; first: Date | null }[]>`
    with h as (select ${ms("coalesce(venue_time, polled_at)")} as time, account_value as value, hour
      from app.perps_account_hours
      where address = ${a.address} and coalesce(venue_time, polled_at) >= ${since}),
    samples as (select time, value, 0 as k, hour from h
      union all
      select ${ms("venue_time")}, account_value, 1, null from app.perps_accounts
      where address = ${a.address} and venue_time >= ${since}
        and ${ms("venue_time")} > coalesce((select time from h order by hour desc limit 1),
          '-infinity')),
    ordered as materialized (select time, value, row_number() over w as i,
        max(time) over w as reach
      from samples window w as (order by k, hour rows unbounded preceding)),
    first as materialized (select time, value from ordered where i = 1),
    flows as materialized (select ${ms("occurred_at")} as time,
        case when event_type in ('perps.deposit', 'perps.transfer.in') then (data->>'usdc')::numeric
          else -((data->>'usdc')::numeric + coalesce((data->>'fee')::numeric, 0)) end as amount
      from app.agent_events
      where agent_id = ${a.agentId} and source = ${PERPS_SOURCE}
        and event_type in ('perps.deposit', 'perps.withdraw', 'perps.transfer.in', 'perps.transfer.out')
        and data->>'account' = ${a.address}
        and occurred_at >= ${since} and ${ms("occurred_at")} > (select time from first)),
    points as materialized (select o.i, o.time, o.value,
        coalesce((select sum(amount) from flows f where f.time <= o.reach), 0) as net
      from ordered o)
    select string_agg('{"time":"' || to_char(p.time at time zone 'UTC',
        'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '","accountValue":"' || trim_scale(p.value)::text
        || '","netFlows":"' || trim_scale(p.net)::text || '","pnl":"'
        || trim_scale(p.value - f.value - p.net)::text || '"}', ',' order by p.i) as items,
      (array_agg(trim_scale(p.value - f.value - p.net)::text order by p.i desc))[1] as pnl,
      min(f.time) as first
    from points p, first f`;
  const first = r?.first?.getTime();
  return {
    json: `${head}${r?.items ?? ""}],"pnl":"${r?.pnl ?? "0"}"}`,
    // In while `since` (whole ms) is at or before its time (ms shown, µs kept): out 1 ms after.
    expiresAt: span === null || first === undefined ? Infinity : first + span + 1,
  };
}
