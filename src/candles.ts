// Candle upkeep per trade (registers no handler): exact integer OHLCV in BNB and in USD.
import type { Context } from "ponder:registry";
import { candle } from "ponder:schema";
import type { Hex } from "./settings.ts";

/** Every interval the indexer keeps, in seconds. Buckets start at multiples of it (UTC). */
export const CANDLE_INTERVALS = [
  ["1m", 60n],
  ["5m", 300n],
  ["15m", 900n],
  ["1h", 3600n],
  ["4h", 14400n],
  ["1d", 86400n],
] as const;

const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);

export type CandleTrade = {
  token: Hex;
  timestamp: bigint;
  price: bigint;
  bnbAmount: bigint;
  tokenAmount: bigint;
  /** Execution price and gross BNB in USD (1e18 = 1 USD); null without a feed answer. */
  priceUsd: bigint | null;
  volumeUsd: bigint | null;
};

/** Adds one trade to its bucket of every interval. */
export async function addToCandles(context: Context, t: CandleTrade): Promise<void> {
  const p = t.priceUsd;
  for (const [interval, seconds] of CANDLE_INTERVALS) {
    const bucketStart = t.timestamp - (t.timestamp % seconds);
    await context.db
      .insert(candle)
      .values({
        token: t.token,
        interval,
        bucketStart,
        open: t.price,
        high: t.price,
        low: t.price,
        close: t.price,
        volumeBnb: t.bnbAmount,
        volumeToken: t.tokenAmount,
        tradeCount: 1,
        openUsd: p,
        highUsd: p,
        lowUsd: p,
        closeUsd: p,
        volumeUsd: t.volumeUsd ?? 0n,
      })
      .onConflictDoUpdate((row) => ({
        high: max(row.high, t.price),
        low: min(row.low, t.price),
        close: t.price,
        volumeBnb: row.volumeBnb + t.bnbAmount,
        volumeToken: row.volumeToken + t.tokenAmount,
        tradeCount: row.tradeCount + 1,
        ...(p === null
          ? {}
          : {
              openUsd: row.openUsd ?? p,
              highUsd: row.highUsd === null ? p : max(row.highUsd, p),
              lowUsd: row.lowUsd === null ? p : min(row.lowUsd, p),
              closeUsd: p,
              volumeUsd: row.volumeUsd + (t.volumeUsd ?? 0n),
            }),
      }));
  }
}
