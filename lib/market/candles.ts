// Candles as the indexer writes them (src/candles.ts) and the API reads them
// (api/market/candles.ts): one list of intervals, one bar.

/** Every interval the indexer keeps, in seconds. Buckets start at multiples of it (UTC). */
export const INTERVAL_SECONDS = {
  "1m": 60,
  "5m": 300,
  "15m": 900,
  "1h": 3600,
  "4h": 14_400,
  "1d": 86_400,
} as const;
export type Interval = keyof typeof INTERVAL_SECONDS;
export const INTERVALS = Object.keys(INTERVAL_SECONDS) as [Interval, ...Interval[]];

/** A bucket's prices (BNB wei per whole token, or USD with 18 decimals) and volumes. */
export type Ohlcv = {
  open: bigint;
  high: bigint;
  low: bigint;
  close: bigint;
  volumeBnb: bigint;
  volumeToken: bigint;
  tradeCount: number;
};

/** One bucket as the API serves it: starting at `time` (unix seconds), in one currency. */
export type Bar = Ohlcv & { time: number; volumeUsd: bigint };
