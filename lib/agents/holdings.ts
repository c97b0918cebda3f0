import type { Sql } from "../db/client.ts";
import type { ChainReader } from "./chain-reader.ts";
import { type Dec, mul, parseDec, sum, toDecString, units, ZERO } from "./decimal.ts";

/**
 * Holdings by source. A source is one place an agent keeps value: its treasury Safe, its hot
 * (steward) wallet, its perps venue account. Each reports its assets as of a block or a time;
 * `aggregated` sums them per asset. The perps source reads the perps poller's cache.
 */
export const SOURCE_KEYS = ["agentSafe", "hot", "hyperliquid"] as const;
export type SourceKey = (typeof SOURCE_KEYS)[number];

export type AssetHolding = {
  /** "BNB", the token's symbol, or "USDC". */
  asset: string;
  chain: "bsc" | "hyperliquid" | "arbitrum";
  /** ERC-20 address; null for native BNB and venue balances. */
  token: string | null;
  decimals: number;
  /** Integer amount in the asset's smallest unit. */
  amount: string;
  /** USD per whole unit, exact. */
  priceUsd: string | null;
  valueUsd: string;
  /** How the price was found: the feed, the token's spot price, or a past trade (backfill). */
  priceSource: "bnb_usd_feed" | "spot" | "last_trade" | "stable" | "none";
};

export type SourceHoldings = {
  status: "ok" | "not_connected" | "unavailable";
  address: string | null;
  chain: "bsc" | "hyperliquid" | "arbitrum" | null;
  /** The block (chain sources) or time (polled sources) the figures are as of. */
  asOf: { block: string | null; time: string | null };
  assets: AssetHolding[];
  totalUsd: string;
  reason?: string;
};

/** The point of history a valuation is for: the indexed head, or a past block (backfill). */
export type ValuationPoint = { block: bigint; time: number; historic: boolean };

export type ValuationContext = {
  sql: Sql;
  /** Schema of Ponder's published views. */
  schema: string;
  chain: ChainReader;
  at: ValuationPoint;
  /** USD per BNB as of `at` (from the indexed feed); null when the feed has no round yet. */
  bnbUsd: Dec | null;
};

type Valued = AssetHolding & { value: Dec };

const WEI = 18;

/**
 * USD per BNB at or before `block`, from the indexed BNB/USD feed.
 *
 * @example
 * const feed = await bnbUsdAt(sql, "onchain", 1200n); // { price: {v: 60012345678n, s: 8}, round: "3", … }
 */
export async function bnbUsdAt(sql: Sql, schema: string, block: bigint) {
  const [r] = await sql<{ round: string; answer: string; decimals: number; updated_at: string }[]>`
    select round::text, answer::text, decimals, updated_at::text
    from ${sql(schema)}.bnb_usd where block_number <= ${block.toString()}
    order by block_number desc, round desc limit 1`;
  if (!r) return null;
  return {
    price: units(BigInt(r.answer), r.decimals),
    round: r.round,
    updatedAt: new Date(Number(r.updated_at) * 1000).toISOString(),
  };
}

type TokenRow = { token: string; symbol: string | null; balance: string; price: string | null };

/**
 * Service-token balances of `wallet` as of the point: the indexed `holder` rows, rolled back
 * by the wallet's indexed transfers after a past block. Prices: the token's spot price at the
 * head; for a past block the spot price after the last trade at or before it (the indexer keeps
 * it per trade), or the current one when the token has not traded since.
 */
async function tokenBalances(c: ValuationContext, wallet: string): Promise<TokenRow[]> {
  const { sql } = c;
  const s = sql(c.schema);
  const b = c.at.block.toString();
  if (!c.at.historic) {
    return sql<TokenRow[]>`
      select h.token, t.symbol, h.balance::text as balance, t.last_price::text as price
      from ${s}.holder h join ${s}.token t on t.address = h.token
      where h.account = ${wallet} and h.balance > 0 order by h.token`;
  }
  return sql<TokenRow[]>`
    with later as (
      select token, sum(case when kind = 'token_in' then amount else -amount end) as net
      from ${s}.wallet_activity
      where wallet = ${wallet} and kind in ('token_in', 'token_out') and block_number > ${b}
      group by token)
    select h.token, t.symbol, (h.balance - coalesce(l.net, 0))::text as balance,
      case when not exists (select 1 from ${s}.trade x where x.token = h.token and x.block_number > ${b})
        then t.last_price::text
        else (select x.spot::text from ${s}.trade x where x.token = h.token and x.block_number <= ${b}
              order by x.block_number desc, x.log_index desc limit 1) end as price,
      exists (select 1 from ${s}.trade x where x.token = h.token and x.block_number > ${b}) as traded
    from ${s}.holder h join ${s}.token t on t.address = h.token
    left join later l on l.token = h.token
    where h.account = ${wallet} and h.balance - coalesce(l.net, 0) > 0 order by h.token`;
}

function finish(assets: Valued[]) {
  return {
    assets: assets.map(({ value: _, ...a }) => a),
    total: sum(assets.map((a) => a.value)),
  };
}

/**
 * One BSC wallet's holdings: native BNB (read from the chain at the point's block: no log
 * carries it) and the service tokens the indexer has it holding, valued in USD.
 */
export async function bscWalletHoldings(
  c: ValuationContext,
  address: string,
): Promise<SourceHoldings & { total: Dec }> {
  const bnb = await c.chain.getBalance(address as `0x${string}`, c.at.block);
  const rows = await tokenBalances(c, address);
  const valued: Valued[] = [];
  const bnbValue = c.bnbUsd ? mul(units(bnb, WEI), c.bnbUsd) : ZERO;
  valued.push({
    asset: "BNB",
    chain: "bsc",
    token: null,
    decimals: WEI,
    amount: bnb.toString(),
    priceUsd: c.bnbUsd ? toDecString(c.bnbUsd) : null,
    valueUsd: toDecString(bnbValue),
    priceSource: c.bnbUsd ? "bnb_usd_feed" : "none",
    value: bnbValue,
  });
  for (const r of rows) {
    // price: BNB wei per whole token; value = balance/1e18 * price/1e18 * usdPerBnb.
    const priceBnb = r.price === null ? null : units(BigInt(r.price), WEI);
    const priceUsd = priceBnb && c.bnbUsd ? mul(priceBnb, c.bnbUsd) : null;
    const value = priceUsd ? mul(units(BigInt(r.balance), WEI), priceUsd) : ZERO;
    const traded = (r as TokenRow & { traded?: boolean }).traded;
    valued.push({
      asset: r.symbol ?? r.token,
      chain: "bsc",
      token: r.token,
      decimals: WEI,
      amount: r.balance,
      priceUsd: priceUsd ? toDecString(priceUsd) : null,
      valueUsd: toDecString(value),
      priceSource: priceUsd === null ? "none" : traded ? "last_trade" : "spot",
      // last_trade: the spot after the last trade at or before the block (exact, not the fill).
      value,
    });
  }
  const { assets, total } = finish(valued);
  return {
    status: "ok",
    address,
    chain: "bsc",
    asOf: { block: c.at.block.toString(), time: new Date(c.at.time * 1000).toISOString() },
    assets,
    totalUsd: toDecString(total),
    total,
  };
}

/**
 * The perps venue account as the perps poller last read it (docs/pollers.md): its account
 * value in USDC, as of the poll. A past point takes the last poll of its hour or before.
 * `not_connected`: no perps wallet registered; `unavailable`: not polled yet.
 */
export async function perpsHoldings(
  c: ValuationContext,
  address: string | null,
): Promise<SourceHoldings & { total: Dec }> {
  const none = (status: "not_connected" | "unavailable", reason: string) => ({
    status,
    address,
    chain: "hyperliquid" as const,
    asOf: { block: null, time: null },
    assets: [],
    totalUsd: "0",
    total: ZERO,
    reason,
  });
  if (!address) return none("not_connected", "no perps wallet registered");
  const at = new Date(c.at.time * 1000);
  const [row] = c.at.historic
    ? await c.sql<{ value: string; at: Date }[]>`
        select account_value::text as value, hour as at from app.perps_account_hours
        where address = ${address.toLowerCase()} and hour <= ${at}
        order by hour desc limit 1`
    : await c.sql<{ value: string; at: Date }[]>`
        select account_value::text as value, venue_time as at from app.perps_accounts
        where address = ${address.toLowerCase()}`;
  if (!row) return none("unavailable", "the perps poller has not read this account yet");
  // Account value is USDC on the venue: 6 decimals, $1 each. A negative value counts as zero.
  const value = parseDec(row.value);
  const total = value.v < 0n ? ZERO : value;
  const amount = (total.v * 10n ** 6n) / 10n ** BigInt(total.s);
  return {
    status: "ok",
    address,
    chain: "hyperliquid",
    asOf: { block: null, time: row.at.toISOString() },
    assets: [
      {
        asset: "USDC",
        chain: "hyperliquid",
        token: null,
        decimals: 6,
        amount: amount.toString(),
        priceUsd: "1",
        valueUsd: toDecString(total),
        priceSource: "stable",
      },
    ],
    totalUsd: toDecString(total),
    total,
  };
}

/**
 * Sums sources per asset (same chain and token) into the `aggregated` view.
 *
 * @example
 * const all = aggregate([safe, hot, perps]);
 */
export function aggregate(sources: (SourceHoldings & { total: Dec })[]) {
  const byAsset = new Map<string, { a: AssetHolding; amount: bigint; value: Dec }>();
  for (const s of sources) {
    for (const a of s.assets) {
      const key = `${a.chain}:${a.token ?? a.asset}`;
      const cur = byAsset.get(key);
      const value = parseDec(a.valueUsd);
      if (cur) {
        cur.amount += BigInt(a.amount);
        cur.value = sum([cur.value, value]);
      } else byAsset.set(key, { a, amount: BigInt(a.amount), value });
    }
  }
  const assets = [...byAsset.values()].map(({ a, amount, value }) => ({
    ...a,
    amount: amount.toString(),
    valueUsd: toDecString(value),
  }));
  const total = sum(sources.map((s) => s.total));
  return { assets, total, totalUsd: toDecString(total) };
}
