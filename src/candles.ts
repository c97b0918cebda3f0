// Candle upkeep (registers no handler): exact integer OHLCV in BNB and in USD, written once per
// block and token rather than once per trade.
//
// Every trade of a block has the block's timestamp, so a block's trades of one token fall into
// one bucket per interval: they are folded in memory (addToBlockCandles, in log order) and
// written at the token's last market Transfer of the block (flushBlockCandles), six rows at
// most. Ponder commits whole blocks (a historical batch ends at a block boundary; a live block
// is one transaction), so a crash never keeps half a block's trades without their candles, and
// a batch that Ponder runs again starts the block's fold afresh (a Transfer at or before the
// last one folded means the block is being run again).
import type { Context } from "ponder:registry";
import { candle, type token } from "ponder:schema";
import { INTERVAL_SECONDS, INTERVALS, type Ohlcv } from "../lib/market/candles.ts";
import type { Hex } from "./settings.ts";

/** Every interval with its seconds as a bigint, for block timestamps. */
export const CANDLE_INTERVALS = INTERVALS.map((i) => [i, BigInt(INTERVAL_SECONDS[i])] as const);

const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);

export type CandleTrade = {
  price: bigint;
  bnbAmount: bigint;
  tokenAmount: bigint;
  /** Execution price and gross BNB in USD (1e18 = 1 USD); null without a feed answer. */
  priceUsd: bigint | null;
  volumeUsd: bigint | null;
};

type Fold = Ohlcv & {
  /** Over the trades that had a feed answer; null while none had. */
  openUsd: bigint | null;
  highUsd: bigint | null;
  lowUsd: bigint | null;
  closeUsd: bigint | null;
  volumeUsd: bigint;
};

type Pending = {
  blockHash: Hex;
  timestamp: bigint;
  /** The token's lastTradeAt before this block: a bucket that starts after it has no row yet. */
  lastTradeBefore: bigint | null;
  /** Log index of the last trade folded. */
  lastLogIndex: number;
  fold: Fold;
};

type TokenRow = typeof token.$inferSelect;

/** The block being folded and its tokens' pending candles. */
let current: Hex | undefined;
const pending = new Map<Hex, Pending>();

/**
 * Folds one trade of `tok` into the block's pending candles. `tok` is the token row as read
 * before the trade's transaction was applied.
 */
export function addToBlockCandles(
  tok: TokenRow,
  block: { hash: Hex; timestamp: bigint },
  logIndex: number,
  t: CandleTrade,
): void {
  if (current !== block.hash) {
    // A new block (or a block run again after an earlier one): whatever is left is stale.
    pending.clear();
    current = block.hash;
  }
  let p = pending.get(tok.address);
  if (p && logIndex <= p.lastLogIndex) p = undefined;
  if (!p) {
    const u = t.priceUsd;
    pending.set(tok.address, {
      blockHash: block.hash,
      timestamp: block.timestamp,
      lastTradeBefore: tok.lastTradeAt,
      lastLogIndex: logIndex,
      fold: {
        open: t.price,
        high: t.price,
        low: t.price,
        close: t.price,
        volumeBnb: t.bnbAmount,
        volumeToken: t.tokenAmount,
        tradeCount: 1,
        openUsd: u,
        highUsd: u,
        lowUsd: u,
        closeUsd: u,
        volumeUsd: t.volumeUsd ?? 0n,
      },
    });
    return;
  }
  p.lastLogIndex = logIndex;
  const f = p.fold;
  f.high = max(f.high, t.price);
  f.low = min(f.low, t.price);
  f.close = t.price;
  f.volumeBnb += t.bnbAmount;
  f.volumeToken += t.tokenAmount;
  f.tradeCount += 1;
  const u = t.priceUsd;
  if (u !== null) {
    f.openUsd ??= u;
    f.highUsd = f.highUsd === null ? u : max(f.highUsd, u);
    f.lowUsd = f.lowUsd === null ? u : min(f.lowUsd, u);
    f.closeUsd = u;
    f.volumeUsd += t.volumeUsd ?? 0n;
  }
}

/** Writes the block's pending candles of `token` (its last market Transfer of the block). */
export async function flushBlockCandles(
  context: Context,
  token: Hex,
  block: { hash: Hex },
): Promise<void> {
  const p = pending.get(token);
  if (!p || p.blockHash !== block.hash) return;
  pending.delete(token);
  const f = p.fold;
  for (const [interval, seconds] of CANDLE_INTERVALS) {
    const bucketStart = p.timestamp - (p.timestamp % seconds);
    const row = { token, interval, bucketStart, ...f };
    // Block timestamps only grow, so a bucket starting after the token's last trade is empty:
    // insert it without reading it first.
    if (p.lastTradeBefore === null || p.lastTradeBefore < bucketStart) {
      await context.db.insert(candle).values(row);
      continue;
    }
    await context.db
      .insert(candle)
      .values(row)
      .onConflictDoUpdate((r) => ({
        high: max(r.high, f.high),
        low: min(r.low, f.low),
        close: f.close,
        volumeBnb: r.volumeBnb + f.volumeBnb,
        volumeToken: r.volumeToken + f.volumeToken,
        tradeCount: r.tradeCount + f.tradeCount,
        ...(f.closeUsd === null
          ? {}
          : {
              openUsd: r.openUsd ?? f.openUsd,
              highUsd: r.highUsd === null ? f.highUsd : max(r.highUsd, f.highUsd as bigint),
              lowUsd: r.lowUsd === null ? f.lowUsd : min(r.lowUsd, f.lowUsd as bigint),
              closeUsd: f.closeUsd,
              volumeUsd: r.volumeUsd + f.volumeUsd,
            }),
      }));
  }
}
