// Trade extraction from a transaction's receipt and the per-trade updates (token state, candles).
// Registers no handler. Receipts come from receipts.ts.
import type { Context } from "ponder:registry";
import { bnbUsdLatest, token, trade } from "ponder:schema";
import { decodeEventLog, type Log, toEventSelector } from "viem";
import { tokenManager2Abi } from "../abis/TokenManager2.ts";
import { uniswapV2PairAbi } from "../abis/UniswapV2Pair.ts";
import { addToCandles } from "./candles.ts";
import { type Hex, logId, lower, settings, WAD } from "./settings.ts";
import { toUsd } from "./usd.ts";

const sel = (abi: typeof tokenManager2Abi | typeof uniswapV2PairAbi, name: string) => {
  const item = abi.find((i) => i.type === "event" && i.name === name);
  if (item?.type !== "event") throw new Error(`no event ${name}`);
  return toEventSelector(item);
};
const TOPIC = {
  purchase: sel(tokenManager2Abi, "TokenPurchase"),
  sale: sel(tokenManager2Abi, "TokenSale"),
  liquidity: sel(tokenManager2Abi, "LiquidityAdded"),
  create: sel(tokenManager2Abi, "TokenCreate"),
  swap: sel(uniswapV2PairAbi, "Swap"),
  sync: sel(uniswapV2PairAbi, "Sync"),
};

type TokenRow = typeof token.$inferSelect;
type Block = { number: bigint; timestamp: bigint; hash: Hex };

/** TokenCreate of `address` in the receipt, if it is there. */
export function findTokenCreate(logs: Log[], address: Hex) {
  for (const log of logs) {
    if (lower(log.address) !== settings.tokenManager2 || log.topics[0] !== TOPIC.create) continue;
    const ev = decodeEventLog({ abi: tokenManager2Abi, data: log.data, topics: log.topics });
    if (ev.eventName === "TokenCreate" && lower(ev.args.token) === address) return ev.args;
  }
  return undefined;
}

type TradeInput = {
  venue: "curve" | "dex";
  side: "buy" | "sell";
  account: Hex;
  tokenAmount: bigint;
  bnbAmount: bigint;
  fee: bigint;
  /** Spot price after the trade. */
  spot: bigint;
  curve?: { offers: bigint; funds: bigint };
  logIndex: number;
};

/**
 * Applies every trade of `tok` found in the receipt (curve purchases and sales, DEX swaps on its
 * pair) and its graduation, each exactly once: a trade is new only if its id is not in `trade`.
 */
export async function applyReceiptTrades(
  context: Context,
  tok: TokenRow,
  logs: Log[],
  tx: { hash: Hex; from: Hex },
  block: Block,
): Promise<void> {
  const tokenIsToken0 = tok.address < settings.wbnb;
  let lastSync: { r0: bigint; r1: bigint } | undefined;
  for (const log of logs) {
    const address = lower(log.address);
    const topic = log.topics[0];
    const logIndex = log.logIndex as number;
    if (address === settings.tokenManager2) {
      if (topic === TOPIC.purchase || topic === TOPIC.sale) {
        const ev = decodeEventLog({ abi: tokenManager2Abi, data: log.data, topics: log.topics });
        if (ev.eventName !== "TokenPurchase" && ev.eventName !== "TokenSale") continue;
        const a = ev.args;
        if (lower(a.token) !== tok.address || a.amount === 0n) continue;
        await applyTrade(context, tok.address, tx.hash, block, {
          venue: "curve",
          side: ev.eventName === "TokenPurchase" ? "buy" : "sell",
          account: lower(a.account),
          tokenAmount: a.amount,
          bnbAmount: a.cost,
          fee: a.fee,
          spot: a.price,
          curve: { offers: a.offers, funds: a.funds },
          logIndex,
        });
      } else if (topic === TOPIC.liquidity) {
        const ev = decodeEventLog({ abi: tokenManager2Abi, data: log.data, topics: log.topics });
        if (ev.eventName !== "LiquidityAdded" || lower(ev.args.base) !== tok.address) continue;
        await context.db.update(token, { address: tok.address }).set((row) =>
          row.status === "graduated"
            ? {}
            : {
                status: "graduated",
                offers: 0n,
                graduatedBlock: block.number,
                graduatedAt: block.timestamp,
                graduatedTx: tx.hash,
                graduatedLogIndex: logIndex,
              },
        );
      }
    } else if (address === tok.pair) {
      if (topic === TOPIC.sync) {
        const ev = decodeEventLog({ abi: uniswapV2PairAbi, data: log.data, topics: log.topics });
        if (ev.eventName === "Sync") lastSync = { r0: ev.args.reserve0, r1: ev.args.reserve1 };
      } else if (topic === TOPIC.swap) {
        const ev = decodeEventLog({ abi: uniswapV2PairAbi, data: log.data, topics: log.topics });
        if (ev.eventName !== "Swap") continue;
        const a = ev.args;
        const [tIn, tOut, bIn, bOut] = tokenIsToken0
          ? [a.amount0In, a.amount0Out, a.amount1In, a.amount1Out]
          : [a.amount1In, a.amount1Out, a.amount0In, a.amount0Out];
        const buy = tOut > tIn;
        const tokenAmount = buy ? tOut - tIn : tIn - tOut;
        const bnbAmount = buy ? bIn - bOut : bOut - bIn;
        if (tokenAmount <= 0n || bnbAmount < 0n) continue;
        // UniswapV2Pair emits Sync right before Swap: the reserves after this swap.
        const [rToken, rBnb] = lastSync
          ? tokenIsToken0
            ? [lastSync.r0, lastSync.r1]
            : [lastSync.r1, lastSync.r0]
          : [0n, 0n];
        await applyTrade(context, tok.address, tx.hash, block, {
          venue: "dex",
          side: buy ? "buy" : "sell",
          // The pair's `to` is often the router: the trader is the transaction's sender.
          account: tx.from,
          tokenAmount,
          bnbAmount,
          fee: 0n,
          spot: rToken === 0n ? 0n : (rBnb * WAD) / rToken,
          logIndex,
        });
      }
    }
  }
  if (lastSync) await recordLiquidity(context, tok, tokenIsToken0, lastSync);
}

/** The pair's reserves after the receipt's last Sync: the liquidity of a DEX-traded token. */
async function recordLiquidity(
  context: Context,
  tok: TokenRow,
  tokenIsToken0: boolean,
  sync: { r0: bigint; r1: bigint },
): Promise<void> {
  const [rToken, rBnb] = tokenIsToken0 ? [sync.r0, sync.r1] : [sync.r1, sync.r0];
  await context.db.update(token, { address: tok.address }).set((row) => ({
    liquidityBnb: rBnb,
    liquidityToken: rToken,
    // A launch token's first price is the pair's at its first liquidity.
    initialPrice: row.initialPrice ?? (rToken === 0n ? null : (rBnb * WAD) / rToken),
  }));
}

async function applyTrade(
  context: Context,
  address: Hex,
  txHash: Hex,
  block: Block,
  t: TradeInput,
): Promise<void> {
  const id = logId(txHash, t.logIndex);
  if (await context.db.find(trade, { id })) return;
  const price = (t.bnbAmount * WAD) / t.tokenAmount;
  const rate = (await context.db.find(bnbUsdLatest, { id: "latest" }))?.rate ?? null;
  await context.db.insert(trade).values({
    id,
    token: address,
    venue: t.venue,
    side: t.side,
    account: t.account,
    tokenAmount: t.tokenAmount,
    bnbAmount: t.bnbAmount,
    fee: t.fee,
    price,
    blockNumber: block.number,
    logIndex: t.logIndex,
    txHash,
    timestamp: block.timestamp,
    spot: t.spot,
    bnbUsd: rate,
  });
  await context.db.update(token, { address }).set((row) => ({
    lastTradeAt: block.timestamp,
    lastPrice: t.spot,
    marketCapBnb: (t.spot * row.totalSupply) / WAD,
    totalVolumeBnb: row.totalVolumeBnb + t.bnbAmount,
    tradeCount: row.tradeCount + 1,
    ...(t.curve ? { offers: t.curve.offers, funds: t.curve.funds } : {}),
  }));
  await addToCandles(context, {
    token: address,
    timestamp: block.timestamp,
    price,
    bnbAmount: t.bnbAmount,
    tokenAmount: t.tokenAmount,
    priceUsd: toUsd(price, rate),
    volumeUsd: toUsd(t.bnbAmount, rate),
  });
}
