// The chart's common read (no gap filling) as JSON text built by Postgres: a cache miss then
// costs one indexed query and one string, not 300 row objects, 2,400 BigInts and a stringify.
import type { Sql } from "../../lib/db/client.ts";
import { view } from "../../lib/db/views.ts";
import type { ReadCandlesParameters } from "./candles.ts";

/** As `readCandles` reads, without gap filling (nor the chain time gap filling runs up to). */
export type ChartItemsJsonParameters = Omit<ReadCandlesParameters, "fill" | "now">;

export type ChartItemsJsonReturnType = {
  /** False when no token `address` is indexed. */
  known: boolean;
  /** The candles as a JSON array's inner text, oldest first ("" for none). */
  items: string;
};

export type ChartItemsJsonErrorType = Error;

/**
 * The latest `limit` candles of [from, to] as the chart's `items` JSON, byte for byte what
 * `toCandle` + `JSON.stringify` give (api/market/chart-json.test.ts holds them equal): integers
 * as numeric text, USD as exact decimals (a multiplication by 1e-18 is exact in `numeric`,
 * `trim_scale` drops the trailing zeros), times as ISO 8601 UTC. With `currency=usd` a candle
 * lacking a USD price is omitted after the limit, as `readCandles` does: `||` with a null
 * yields null and `string_agg` skips it. One round trip, the token check included.
 *
 * @example
 * const { known, items } = await chartItemsJson(sql, "onchain", { address, interval: "1m", currency: "bnb", limit: 300 });
 */
export async function chartItemsJson(
  sql: Sql,
  schema: string,
  p: ChartItemsJsonParameters,
): Promise<ChartItemsJsonReturnType> {
  const candles = view(sql, schema, "candle");
  const tokens = view(sql, schema, "token");
  const price = (col: string) =>
    p.currency === "usd"
      ? sql`trim_scale(${sql(`${col}_usd`)} * 0.000000000000000001)::text`
      : sql`${sql(col)}::text`;
  const [row] = await sql<{ known: boolean; items: string }[]>`select
      exists (select 1 from ${tokens} where address = ${p.address}) as known,
      (select coalesce(string_agg(j, ',' order by b), '') from (
        select bucket_start as b,
          '{"time":"' || to_char(to_timestamp(bucket_start::float8) at time zone 'UTC',
            'YYYY-MM-DD"T"HH24:MI:SS".000Z"')
          || '","open":"' || ${price("open")} || '","high":"' || ${price("high")}
          || '","low":"' || ${price("low")} || '","close":"' || ${price("close")}
          || '","volumeBnb":"' || volume_bnb::text || '","volumeToken":"' || volume_token::text
          || '","volumeUsd":"' || trim_scale(volume_usd * 0.000000000000000001)::text
          || '","tradeCount":' || trade_count::text || '}' as j
        from ${candles} where token = ${p.address} and interval = ${p.interval}
          ${p.from === undefined ? sql`` : sql`and bucket_start >= ${p.from}`}
          ${p.to === undefined ? sql`` : sql`and bucket_start <= ${p.to}`}
        order by bucket_start desc limit ${p.limit}) x) as items`;
  return { known: row?.known ?? false, items: row?.items ?? "" };
}
