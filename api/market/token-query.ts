// The SQL behind token records: the indexed row, its agent, its launch metadata, the latest
// BNB/USD rate and the exact 24-hour figures over the rolling window (now - 24 h, now].
import type { Sql } from "../../lib/db/client.ts";
import { view } from "../../lib/db/views.ts";
import { DAY } from "./clock.ts";

const HOUR = 3600;

export const TOKEN_SORTS = [
  "new",
  "volume24h",
  "marketCap",
  "trending",
  "volume",
  "taxIncome",
] as const;
export type TokenSort = (typeof TOKEN_SORTS)[number];

export type TokenFilter = {
  status?: "registered" | "curve" | "graduated";
  /** Name or symbol prefix (case-insensitive), or an exact address. */
  q?: string;
  creator?: string;
};

export type TokenKeyset = { k: string; a: string };

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The page of token addresses in `sort` order with its sort key `k`:
 * - new: registration block (the ServiceRegistry or LaunchFactory event), index (registered_block, address);
 * - marketCap: market cap in BNB wei, index (market_cap_bnb, address);
 * - volume: all-time BNB volume, index (total_volume_bnb, address);
 * - taxIncome: BNB the token's tax brought its treasury and holders (token_tax income_bnb, 0
 *   before a dispatch);
 * - volume24h: BNB wei traded in the window: the 1h candles of the whole hours in it (candle
 *   (interval, bucket_start)) plus the trades of the partial first hour (trade (timestamp));
 * - trending: over the 24 hourly buckets ending with the current one, each bucket's volume
 *   weighted by its recency (24/24 for the current hour down to 1/24), times their trade count
 *   (integer arithmetic, from the 1h candles alone).
 * Ties break on the address, so keyset pages are stable.
 */
export function tokenPage(
  sql: Sql,
  schema: string,
  o: {
    sort: TokenSort;
    desc: boolean;
    now: number;
    filter: TokenFilter;
    after?: TokenKeyset;
    limit: number;
    offset: number;
  },
) {
  const t = view(sql, schema, "token");
  const f = o.filter;
  const where = filterSql(sql, f);
  const window = windowKeys(sql, schema, o.sort, o.now);
  const keyed =
    o.sort === "new"
      ? sql`select t.address, t.registered_block as k from ${t} t where ${where}`
      : o.sort === "marketCap"
        ? sql`select t.address, t.market_cap_bnb as k from ${t} t where ${where}`
        : o.sort === "volume"
          ? sql`select t.address, t.total_volume_bnb as k from ${t} t where ${where}`
          : o.sort === "taxIncome"
            ? sql`select t.address, coalesce(x.income_bnb, 0) as k from ${t} t
              left join ${view(sql, schema, "token_tax")} x on x.token = t.address where ${where}`
            : sql`select t.address, coalesce(w.k, 0) as k from ${t} t
            left join (${window}) w on w.token = t.address where ${where}`;
  const dir = o.desc ? sql`desc` : sql`asc`;
  const keyset = o.after
    ? o.desc
      ? sql`where (k, address) < (${o.after.k}::numeric, ${o.after.a})`
      : sql`where (k, address) > (${o.after.k}::numeric, ${o.after.a})`
    : sql``;
  const page = sql`select * from (${keyed}) x ${keyset}
    order by k ${dir}, address ${dir} limit ${o.limit + 1} offset ${o.offset}`;
  return { page, count: sql`select count(*)::int as n from ${t} t where ${where}` };
}

/**
 * Per token with a trade in the window, its `volume24h` or `trending` key (see `tokenPage`).
 * Whole hours come from the 1h candles (kept exact per trade by the indexer); only the first,
 * partial hour of the window reads trades. Cost: token-hours, not trades.
 */
function windowKeys(sql: Sql, schema: string, sort: TokenSort, now: number) {
  const trades = view(sql, schema, "trade");
  const candles = view(sql, schema, "candle");
  const since = now - DAY;
  const firstHour = since - (since % HOUR) + HOUR;
  const hours = sql`${candles} c where c.interval = '1h'
    and c.bucket_start >= ${firstHour} and c.bucket_start <= ${now}`;
  return sort === "volume24h"
    ? sql`select token, sum(v) as k from (
          select c.token, c.volume_bnb as v from ${hours}
          union all
          select token, bnb_amount from ${trades} where timestamp > ${since} and timestamp < ${firstHour}
        ) u group by token`
    : sql`select c.token, div(sum(c.volume_bnb * div(c.bucket_start - ${firstHour - HOUR}, ${HOUR})),
            ${DAY / HOUR}) * sum(c.trade_count) as k
        from ${hours} group by c.token`;
}

/**
 * Every token with its `volume24h` or `trending` key (0 without a trade in the window) and its
 * status, largest key first, ties by address descending: the ranking `api/market/ranking.ts`
 * keeps per indexed block.
 */
export function rankingQuery(
  sql: Sql,
  schema: string,
  sort: "volume24h" | "trending",
  now: number,
) {
  const t = view(sql, schema, "token");
  return sql<{ address: string; k: string; status: string }[]>`
    select t.address, coalesce(w.k, 0)::text as k, t.status::text as status from ${t} t
    left join (${windowKeys(sql, schema, sort, now)}) w on w.token = t.address
    order by coalesce(w.k, 0) desc, t.address desc`;
}

/** Addresses matching a `q` or `creator` filter (status is applied by the caller). */
export function filteredAddresses(sql: Sql, schema: string, f: TokenFilter) {
  const t = view(sql, schema, "token");
  return sql<
    { address: string }[]
  >`select t.address from ${t} t where ${filterSql(sql, { ...f, status: undefined })}`;
}

function filterSql(sql: Sql, f: TokenFilter) {
  return sql`true
    ${f.status ? sql`and t.status = ${f.status}` : sql``}
    ${f.creator ? sql`and t.creator = ${f.creator}` : sql``}
    ${
      f.q === undefined
        ? sql``
        : /^0x[0-9a-fA-F]{40}$/.test(f.q)
          ? sql`and t.address = ${f.q.toLowerCase()}`
          : sql`and (t.name ilike ${`${escapeLike(f.q)}%`} or t.symbol ilike ${`${escapeLike(f.q)}%`})`
    }`;
}

/**
 * Token rows of `addresses` (any order) with everything a token record needs. The 24-hour
 * figures read trade (token, timestamp).
 */
export function tokenRecords(sql: Sql, schema: string, addresses: string[], now: number) {
  const t = view(sql, schema, "token");
  const trades = view(sql, schema, "trade");
  const launches = view(sql, schema, "launch");
  const latest = view(sql, schema, "bnb_usd_latest");
  const since = now - DAY;
  return sql`
    select t.*, a.agent_id as app_agent_id, a.description as agent_description,
      a.image_url as agent_image, l.metadata as launch_metadata, r.rate as bnb_usd_rate,
      s.trades24h, s.buys24h, s.sells24h, s.traders24h, s.volume24h::text, s.volume24h_usd::text,
      s.high24h::text, s.low24h::text, ref.spot::text as ref_spot,
      coalesce(x.income_bnb, 0)::text as tax_income_bnb
    from ${t} t
    left join ${view(sql, schema, "token_tax")} x on x.token = t.address
    left join app.agents a on a.token_address = t.address
    left join ${launches} l on l.vault = t.launch_vault
    left join ${latest} r on r.id = 'latest'
    left join lateral (
      select count(*)::int as trades24h,
        (count(*) filter (where side = 'buy'))::int as buys24h,
        (count(*) filter (where side = 'sell'))::int as sells24h,
        count(distinct account)::int as traders24h,
        coalesce(sum(bnb_amount), 0) as volume24h,
        coalesce(sum(div(bnb_amount * bnb_usd, 1e18)), 0) as volume24h_usd,
        max(price) as high24h, min(price) as low24h
      from ${trades} x where x.token = t.address and x.timestamp > ${since} and x.timestamp <= ${now}
    ) s on true
    left join lateral (
      select spot from ${trades} y where y.token = t.address and y.timestamp <= ${since}
      order by y.timestamp desc, y.block_number desc, y.log_index desc limit 1
    ) ref on true
    where t.address = any(${addresses})`;
}
