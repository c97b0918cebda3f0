// Trade extraction from a transaction's receipt and the per-trade updates (trade rows, token
// state, candle contributions). Registers no handler. Receipts come from receipts.ts.
//
// The logs stay in their RPC form and only the five event kinds read here are decoded, by hand:
// their data are fixed 32-byte words, and viem's generic decodeEventLog was the handler's
// largest single cost after the store calls.
import type { Context } from "ponder:registry";
import { bnbUsdLatest, token, trade } from "ponder:schema";
import { decodeEventLog, toEventSelector } from "viem";
import { tokenManager2Abi } from "../abis/TokenManager2.ts";
import { uniswapV2PairAbi } from "../abis/UniswapV2Pair.ts";
import { addToBlockCandles } from "./candles.ts";
import { recordEarlyBuy } from "./launch-funding.ts";
import type { RawLog } from "./receipts.ts";
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
  transfer: toEventSelector("Transfer(address,address,uint256)"),
};

type TokenRow = typeof token.$inferSelect;
type Block = { number: bigint; timestamp: bigint; hash: Hex; parentHash: Hex };

/** The address in a log's `i`-th topic. */
function topicAddress(log: RawLog, i: number): Hex | undefined {
  const t = log.topics[i];
  return t ? (`0x${t.slice(26)}`.toLowerCase() as Hex) : undefined;
}

/** The `i`-th 32-byte word of a log's data as an unsigned integer. */
function word(log: RawLog, i: number, count: number): bigint {
  if (log.data.length < 2 + 64 * count) {
    throw new Error(`log ${log.logIndex} of ${log.address}: ${count} data words expected`);
  }
  return BigInt(`0x${log.data.slice(2 + 64 * i, 66 + 64 * i)}`);
}

/** The `i`-th 32-byte word of a log's data as a lowercase address. */
const wordAddress = (log: RawLog, i: number) =>
  `0x${log.data.slice(26 + 64 * i, 66 + 64 * i).toLowerCase()}` as Hex;

/** TokenCreate of `address` in the receipt, if it is there. */
export function findTokenCreate(logs: RawLog[], address: Hex) {
  for (const log of logs) {
    if (lower(log.address) !== settings.tokenManager2 || log.topics[0] !== TOPIC.create) continue;
    const ev = decodeEventLog({
      abi: tokenManager2Abi,
      data: log.data,
      topics: log.topics as [Hex, ...Hex[]],
    });
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

/** What one transaction did to one token's market, in log order. */
type Step =
  | { kind: "trade"; t: TradeInput }
  | { kind: "graduate"; logIndex: number }
  | { kind: "liquidity"; rToken: bigint; rBnb: bigint };

/** The trades (curve purchases and sales, DEX swaps on its pair) and graduation of `tok` in a receipt. */
function readSteps(tok: TokenRow, logs: RawLog[], txFrom: Hex): Step[] {
  const steps: Step[] = [];
  const tokenIsToken0 = tok.address < settings.wbnb;
  let lastSync: { r0: bigint; r1: bigint } | undefined;
  // Who last sent this token into its pair: the token itself when it sells its collected tax
  // (a dispatch inside someone's sell), the seller otherwise.
  let lastInto: Hex | undefined;
  for (const log of logs) {
    const topic = log.topics[0];
    if (topic === TOPIC.transfer && lower(log.address) === tok.address) {
      if (topicAddress(log, 2) === tok.pair) lastInto = topicAddress(log, 1);
      continue;
    }
    if (
      topic !== TOPIC.purchase &&
      topic !== TOPIC.sale &&
      topic !== TOPIC.liquidity &&
      topic !== TOPIC.sync &&
      topic !== TOPIC.swap
    ) {
      continue;
    }
    const address = lower(log.address);
    const logIndex = Number(log.logIndex);
    if (address === settings.tokenManager2) {
      if (topic === TOPIC.purchase || topic === TOPIC.sale) {
        // (token, account, price, amount, cost, fee, offers, funds), none indexed.
        if (wordAddress(log, 0) !== tok.address) continue;
        const amount = word(log, 3, 8);
        if (amount === 0n) continue;
        steps.push({
          kind: "trade",
          t: {
            venue: "curve",
            side: topic === TOPIC.purchase ? "buy" : "sell",
            account: wordAddress(log, 1),
            tokenAmount: amount,
            bnbAmount: word(log, 4, 8),
            fee: word(log, 5, 8),
            spot: word(log, 2, 8),
            curve: { offers: word(log, 6, 8), funds: word(log, 7, 8) },
            logIndex,
          },
        });
      } else if (topic === TOPIC.liquidity) {
        // (base, offers, quote, funds), none indexed.
        word(log, 3, 4);
        if (wordAddress(log, 0) === tok.address) steps.push({ kind: "graduate", logIndex });
      }
    } else if (address === tok.pair) {
      if (topic === TOPIC.sync) {
        lastSync = { r0: word(log, 0, 2), r1: word(log, 1, 2) };
      } else if (topic === TOPIC.swap) {
        // Swap(sender indexed, amount0In, amount1In, amount0Out, amount1Out, to indexed).
        const [a0In, a1In, a0Out, a1Out] = [0, 1, 2, 3].map((i) => word(log, i, 4)) as [
          bigint,
          bigint,
          bigint,
          bigint,
        ];
        const [tIn, tOut, bIn, bOut] = tokenIsToken0
          ? [a0In, a0Out, a1In, a1Out]
          : [a1In, a1Out, a0In, a0Out];
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
        steps.push({
          kind: "trade",
          t: {
            venue: "dex",
            side: buy ? "buy" : "sell",
            // The pair's `to` is often the router: the trader is the transaction's sender,
            // unless the token is selling its own tax.
            account: !buy && lastInto === tok.address ? tok.address : txFrom,
            tokenAmount,
            bnbAmount,
            fee: 0n,
            spot: rToken === 0n ? 0n : (rBnb * WAD) / rToken,
            logIndex,
          },
        });
      }
    }
  }
  if (lastSync) {
    const [rToken, rBnb] = tokenIsToken0 ? [lastSync.r0, lastSync.r1] : [lastSync.r1, lastSync.r0];
    steps.push({ kind: "liquidity", rToken, rBnb });
  }
  return steps;
}

/**
 * Applies every trade of `tok` found in the receipt and its graduation. The caller calls this
 * once per (transaction, token): at the transaction's first Transfer of the token that touches
 * its market (ServiceToken.ts), so a trade row is inserted without looking for it first.
 */
export async function applyReceiptTrades(
  context: Context,
  tok: TokenRow,
  logs: RawLog[],
  tx: { hash: Hex; from: Hex },
  block: Block,
): Promise<void> {
  const steps = readSteps(tok, logs, tx.from);
  if (steps.length === 0) return;
  const trades = steps.flatMap((s) => (s.kind === "trade" ? [s.t] : []));
  const rate =
    trades.length > 0
      ? ((await context.db.find(bnbUsdLatest, { id: "latest" }))?.rate ?? null)
      : null;
  if (trades.length > 0) {
    await context.db.insert(trade).values(
      trades.map((t) => ({
        id: logId(tx.hash, t.logIndex),
        token: tok.address,
        venue: t.venue,
        side: t.side,
        account: t.account,
        tokenAmount: t.tokenAmount,
        bnbAmount: t.bnbAmount,
        fee: t.fee,
        price: (t.bnbAmount * WAD) / t.tokenAmount,
        blockNumber: block.number,
        logIndex: t.logIndex,
        txHash: tx.hash,
        timestamp: block.timestamp,
        spot: t.spot,
        bnbUsd: rate,
      })),
    );
  }
  // One update of the token row for the whole transaction, its steps folded in log order.
  await context.db.update(token, { address: tok.address }).set((row) => {
    const c: Partial<TokenRow> = {};
    let status = row.status;
    let initialPrice = row.initialPrice;
    for (const s of steps) {
      if (s.kind === "trade") {
        const t = s.t;
        c.lastTradeAt = block.timestamp;
        c.lastPrice = t.spot;
        c.marketCapBnb = (t.spot * row.totalSupply) / WAD;
        if (t.curve) {
          c.offers = t.curve.offers;
          c.funds = t.curve.funds;
        }
      } else if (s.kind === "graduate") {
        if (status === "graduated") continue;
        status = "graduated";
        Object.assign(c, {
          status,
          offers: 0n,
          graduatedBlock: block.number,
          graduatedAt: block.timestamp,
          graduatedTx: tx.hash,
          graduatedLogIndex: s.logIndex,
        });
      } else {
        // The pair's reserves after the receipt's last Sync: the liquidity of a DEX-traded token.
        c.liquidityBnb = s.rBnb;
        c.liquidityToken = s.rToken;
        // A launch token's first price is the pair's at its first liquidity.
        initialPrice ??= s.rToken === 0n ? null : (s.rBnb * WAD) / s.rToken;
        c.initialPrice = initialPrice;
      }
    }
    if (trades.length > 0) {
      c.totalVolumeBnb = trades.reduce((sum, t) => sum + t.bnbAmount, row.totalVolumeBnb);
      c.tradeCount = row.tradeCount + trades.length;
    }
    return c;
  });
  // The launch report's buyers and their funding just before (launch-funding.ts).
  for (const t of trades) {
    if (t.venue !== "curve" || t.side !== "buy") continue;
    await recordEarlyBuy(context, { tok, account: t.account, txHash: tx.hash, block });
  }
  for (const t of trades) {
    const price = (t.bnbAmount * WAD) / t.tokenAmount;
    addToBlockCandles(tok, block, t.logIndex, {
      price,
      bnbAmount: t.bnbAmount,
      tokenAmount: t.tokenAmount,
      priceUsd: toUsd(price, rate),
      volumeUsd: toUsd(t.bnbAmount, rate),
    });
  }
}
