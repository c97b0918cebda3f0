import { type Address, erc20Abi, getAbiItem, type PublicClient, zeroAddress } from "viem";
import { tokenManager2Abi } from "../../abis/TokenManager2.ts";
import { uniswapV2PairAbi } from "../../abis/UniswapV2Pair.ts";
import type { DeploymentRecord } from "../../devnet/record.ts";
import { rateAt } from "../indexer/market-check.ts";

// Market figures recomputed from raw logs, block timestamps and contract reads, for comparing
// with the API. Shares no code with src/ or api/.

export const WAD = 10n ** 18n;
export const DAY = 86_400n;
const HOUR = 3_600n;
const lc = (a: string) => a.toLowerCase() as Address;

export type ChainTrade = {
  token: Address;
  block: bigint;
  logIndex: number;
  time: bigint;
  side: "buy" | "sell";
  account: Address;
  bnb: bigint;
  amount: bigint;
  price: bigint;
  spot: bigint;
  rate: bigint | null;
};

export type Rates = { block: bigint; logIndex: number; rate: bigint }[];

/** Every trade of `tokens` (address -> pair), curve and DEX, in chain order. */
export async function chainTrades(
  client: PublicClient,
  record: DeploymentRecord,
  tokens: Map<Address, Address>,
  rates: Rates,
): Promise<ChainTrade[]> {
  const fromBlock = BigInt(record.deployedAtBlock);
  const times = new Map<bigint, bigint>();
  const time = async (n: bigint) => {
    if (!times.has(n)) times.set(n, (await client.getBlock({ blockNumber: n })).timestamp);
    return times.get(n) as bigint;
  };
  const out: ChainTrade[] = [];
  for (const name of ["TokenPurchase", "TokenSale"] as const) {
    const logs = await client.getLogs({
      address: record.contracts.tokenManager2,
      event: getAbiItem({ abi: tokenManager2Abi, name }),
      fromBlock,
      toBlock: "latest",
    });
    for (const l of logs) {
      const a = l.args as Record<string, bigint | Address>;
      const token = lc(a.token as Address);
      if (!tokens.has(token) || a.amount === 0n) continue;
      out.push({
        token,
        block: l.blockNumber,
        logIndex: l.logIndex,
        time: await time(l.blockNumber),
        side: name === "TokenPurchase" ? "buy" : "sell",
        account: lc(a.account as Address),
        bnb: a.cost as bigint,
        amount: a.amount as bigint,
        price: ((a.cost as bigint) * WAD) / (a.amount as bigint),
        spot: a.price as bigint,
        rate: rateAt(rates, l.blockNumber, l.logIndex),
      });
    }
  }
  for (const [token, pair] of tokens) {
    if (pair === lc(zeroAddress)) continue;
    const is0 = token < lc(record.contracts.wbnb);
    const swaps = await client.getLogs({
      address: pair,
      event: getAbiItem({ abi: uniswapV2PairAbi, name: "Swap" }),
      fromBlock,
      toBlock: "latest",
    });
    const syncs = await client.getLogs({
      address: pair,
      event: getAbiItem({ abi: uniswapV2PairAbi, name: "Sync" }),
      fromBlock,
      toBlock: "latest",
    });
    // Tokens sent into the pair: a sell fed by the token itself is the token selling its tax.
    const into = (
      await client.getLogs({
        address: token,
        event: getAbiItem({ abi: erc20Abi, name: "Transfer" }),
        args: { to: pair },
        fromBlock,
        toBlock: "latest",
      })
    ).filter((x) => lc(x.args.to as Address) === pair);
    for (const l of swaps) {
      const a = l.args as Record<string, bigint>;
      const [tIn, tOut, bIn, bOut] = (
        is0
          ? [a.amount0In, a.amount0Out, a.amount1In, a.amount1Out]
          : [a.amount1In, a.amount1Out, a.amount0In, a.amount0Out]
      ) as [bigint, bigint, bigint, bigint];
      const buy = tOut > tIn;
      const amount = buy ? tOut - tIn : tIn - tOut;
      const bnb = buy ? bIn - bOut : bOut - bIn;
      const y = syncs.find(
        (s) => s.transactionHash === l.transactionHash && s.logIndex === l.logIndex - 1,
      )?.args as { reserve0: bigint; reserve1: bigint };
      const [rt, rb] = is0 ? [y.reserve0, y.reserve1] : [y.reserve1, y.reserve0];
      const tx = await client.getTransaction({ hash: l.transactionHash });
      const fed = into
        .filter((x) => x.transactionHash === l.transactionHash && x.logIndex < l.logIndex)
        .at(-1);
      const taxSale = !buy && fed !== undefined && lc(fed.args.from as Address) === token;
      out.push({
        token,
        block: l.blockNumber,
        logIndex: l.logIndex,
        time: await time(l.blockNumber),
        side: buy ? "buy" : "sell",
        account: taxSale ? token : lc(tx.from),
        bnb,
        amount,
        price: (bnb * WAD) / amount,
        spot: (rb * WAD) / rt,
        rate: rateAt(rates, l.blockNumber, l.logIndex),
      });
    }
  }
  return out.sort((x, y) => Number(x.block - y.block) || x.logIndex - y.logIndex);
}

/** The 24-hour figures of one token's trades at chain time `now`: window (now - 24 h, now]. */
export function dayStats(trades: ChainTrade[], now: bigint) {
  const w = trades.filter((t) => t.time > now - DAY && t.time <= now);
  const prices = w.map((t) => t.price).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    volume24hBnb: w.reduce((s, t) => s + t.bnb, 0n),
    volume24hUsd: w.reduce((s, t) => s + (t.rate === null ? 0n : (t.bnb * t.rate) / WAD), 0n),
    trades24h: w.length,
    buys24h: w.filter((t) => t.side === "buy").length,
    sells24h: w.filter((t) => t.side === "sell").length,
    uniqueTraders24h: new Set(w.map((t) => t.account)).size,
    high24h: prices.at(-1) ?? null,
    low24h: prices[0] ?? null,
    trending: trendingKey(trades, now),
    /** Spot after the last trade at or before the window's start. */
    refSpot: trades.filter((t) => t.time <= now - DAY).at(-1)?.spot ?? null,
  };
}

/**
 * The trending key as docs/market.md defines it, from the trades themselves: the 24 hourly
 * buckets ending with the one holding `now`; each trade's BNB weighted by its bucket's place
 * (24 for the current hour down to 1), summed, divided by 24 (floor), times their trade count.
 */
export function trendingKey(trades: ChainTrade[], now: bigint) {
  const first = now - (now % HOUR) - DAY + HOUR;
  const w = trades.filter((t) => t.time >= first && t.time <= now);
  const weighted = w.reduce(
    (s, t) => s + t.bnb * ((t.time - (t.time % HOUR) - first) / HOUR + 1n),
    0n,
  );
  return (weighted / (DAY / HOUR)) * BigInt(w.length);
}

/** OHLCV buckets of `trades` at `seconds`, in BNB or (priced trades only) USD. */
export function buckets(trades: ChainTrade[], seconds: bigint, usd: boolean) {
  const m = new Map<bigint, { o: bigint; h: bigint; l: bigint; c: bigint; v: bigint; n: number }>();
  for (const t of trades) {
    if (usd && t.rate === null) continue;
    const p = usd ? (t.price * (t.rate as bigint)) / WAD : t.price;
    const start = t.time - (t.time % seconds);
    const b = m.get(start);
    if (!b) m.set(start, { o: p, h: p, l: p, c: p, v: t.bnb, n: 1 });
    else {
      b.h = p > b.h ? p : b.h;
      b.l = p < b.l ? p : b.l;
      b.c = p;
      b.v += t.bnb;
      b.n++;
    }
  }
  return [...m.entries()].sort((a, b) => Number(a[0] - b[0]));
}

/** Market cap in BNB wei from the spot and the token's supply read from the contract (0 when
 * the token was never deployed, as for a refunded deposit launch). */
export async function marketCap(client: PublicClient, token: Address, spot: bigint) {
  const code = await client.getCode({ address: token });
  if (!code || code === "0x") return 0n;
  const supply = await client.readContract({
    address: token,
    abi: erc20Abi,
    functionName: "totalSupply",
  });
  return (spot * supply) / WAD;
}
