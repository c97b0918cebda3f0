// Reading candles for the chart and the UDF feed: a range, a currency, optional gap filling.
import type { Sql } from "../../lib/db/client.ts";
import { view } from "../../lib/db/views.ts";
import { type Bar, INTERVAL_SECONDS, type Interval } from "../../lib/market/candles.ts";

export type ReadCandlesParameters = {
  address: string;
  interval: Interval;
  currency: "bnb" | "usd";
  /** Bucket starts, inclusive. */
  from?: number;
  to?: number;
  limit: number;
  /** Fill empty buckets with the previous close and zero volume. */
  fill: boolean;
  /** The indexed chain time: no bucket after the one holding it exists yet. */
  now: number;
};

type Row = Record<string, string | number | null>;

function toBar(r: Row, usd: boolean): Bar | undefined {
  const p = usd
    ? ["open_usd", "high_usd", "low_usd", "close_usd"]
    : ["open", "high", "low", "close"];
  // A bucket whose trades all came before the first BNB/USD answer has no USD price.
  if (p.some((k) => r[k] === null)) return undefined;
  const [open, high, low, close] = p.map((k) => BigInt(r[k] as string)) as [
    bigint,
    bigint,
    bigint,
    bigint,
  ];
  return {
    time: Number(r.bucket_start),
    open,
    high,
    low,
    close,
    volumeBnb: BigInt(r.volume_bnb as string),
    volumeToken: BigInt(r.volume_token as string),
    volumeUsd: BigInt(r.volume_usd as string),
    tradeCount: Number(r.trade_count),
  };
}

/**
 * The latest `limit` buckets of [from, to], oldest first. Without `fill`, only buckets with a
 * trade; with it, every bucket from the first one that has a price (a trade in or before the
 * range) up to `to` or the open bucket, empty ones at the previous close with zero volume (the
 * GeckoTerminal `include_empty_intervals` convention). Reads candle (token, interval, bucket_start).
 */
export async function readCandles(sql: Sql, schema: string, p: ReadCandlesParameters) {
  const candles = view(sql, schema, "candle");
  const sec = INTERVAL_SECONDS[p.interval];
  const usd = p.currency === "usd";
  const base = sql`token = ${p.address} and interval = ${p.interval}`;
  if (!p.fill) {
    const rows = await sql<Row[]>`select * from ${candles} where ${base}
      ${p.from === undefined ? sql`` : sql`and bucket_start >= ${p.from}`}
      ${p.to === undefined ? sql`` : sql`and bucket_start <= ${p.to}`}
      order by bucket_start desc limit ${p.limit}`;
    return rows
      .reverse()
      .map((r) => toBar(r, usd))
      .filter((b) => b !== undefined);
  }
  const open = p.now - (p.now % sec);
  const end = Math.min(p.to === undefined ? open : p.to - (p.to % sec), open);
  const first = end - (p.limit - 1) * sec;
  const start = p.from === undefined ? first : Math.max(first, Math.ceil(p.from / sec) * sec);
  if (start > end) return [];
  const [rows, before] = await Promise.all([
    sql<Row[]>`select * from ${candles} where ${base}
      and bucket_start >= ${start} and bucket_start <= ${end} order by bucket_start`,
    sql<Row[]>`select * from ${candles} where ${base} and bucket_start < ${start}
      ${usd ? sql`and close_usd is not null` : sql``}
      order by bucket_start desc limit 1`,
  ]);
  const byTime = new Map<number, Bar>();
  for (const r of rows) {
    const b = toBar(r, usd);
    if (b) byTime.set(b.time, b);
  }
  let prev = before[0] ? toBar(before[0], usd)?.close : undefined;
  const out: Bar[] = [];
  for (let t = start; t <= end; t += sec) {
    const b = byTime.get(t);
    if (b) {
      out.push(b);
      prev = b.close;
    } else if (prev !== undefined) {
      out.push({
        time: t,
        open: prev,
        high: prev,
        low: prev,
        close: prev,
        volumeBnb: 0n,
        volumeToken: 0n,
        volumeUsd: 0n,
        tradeCount: 0,
      });
    }
  }
  return out;
}
