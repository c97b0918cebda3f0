import type { Sql } from "../db/client.ts";
import { readCheckpoints } from "../indexer/status.ts";
import type { ChainReader } from "./chain-reader.ts";
import { toDecString } from "./decimal.ts";
import {
  aggregate,
  bnbUsdAt,
  bscWalletHoldings,
  perpsHoldings,
  type SourceHoldings,
  type ValuationPoint,
} from "./holdings.ts";

/** The wallets an agent's value sits in. */
export type AgentWallets = {
  treasury: string | null;
  hot: string | null;
  /** The registered perps account (hyperliquid), if any. */
  perps: string | null;
};

export type AgentValuation = {
  asOf: { block: string; time: string };
  bnbUsd: { price: string; round: string; updatedAt: string } | null;
  sources: {
    agentSafe: SourceHoldings;
    hot: SourceHoldings;
    hyperliquid: SourceHoldings;
    aggregated: { assets: SourceHoldings["assets"]; totalUsd: string };
  };
  totalUsd: string;
};

/**
 * The indexed head of BSC in the published views: the block every indexed figure is as of.
 * Undefined while the views are not published yet.
 *
 * @example
 * const head = await indexedHead(sql, "onchain"); // { block: 1200n, time: 1767225600, historic: false }
 */
export async function indexedHead(sql: Sql, schema: string): Promise<ValuationPoint | undefined> {
  const index = await readCheckpoints(sql, schema);
  const bsc = index?.chains[0];
  if (!index?.ready || !bsc) return undefined;
  return { block: bsc.block, time: bsc.time, historic: false };
}

const emptyBsc = (address: null): SourceHoldings & { total: { v: bigint; s: number } } => ({
  status: "ok",
  address,
  chain: "bsc",
  asOf: { block: null, time: null },
  assets: [],
  totalUsd: "0",
  total: { v: 0n, s: 0 },
});

/**
 * Values an agent's wallets at a point (the indexed head, or a past block for backfill): per
 * source, aggregated per asset, in exact USD from the indexed BNB/USD feed.
 *
 * @example
 * const v = await valueAgent({ sql, schema, chain, wallets, at: head });
 * v.totalUsd; // "1234.5678"
 */
export async function valueAgent(p: {
  sql: Sql;
  schema: string;
  chain: ChainReader;
  wallets: AgentWallets;
  at: ValuationPoint;
}): Promise<AgentValuation> {
  const feed = await bnbUsdAt(p.sql, p.schema, p.at.block);
  const ctx = {
    sql: p.sql,
    schema: p.schema,
    chain: p.chain,
    at: p.at,
    bnbUsd: feed?.price ?? null,
  };
  const [agentSafe, hot] = await Promise.all([
    p.wallets.treasury ? bscWalletHoldings(ctx, p.wallets.treasury) : emptyBsc(null),
    // The hot wallet may be the treasury too (never in a launch, but do not count it twice).
    p.wallets.hot && p.wallets.hot !== p.wallets.treasury
      ? bscWalletHoldings(ctx, p.wallets.hot)
      : emptyBsc(null),
  ]);
  const hyperliquid = await perpsHoldings(ctx, p.wallets.perps);
  const all = aggregate([agentSafe, hot, hyperliquid]);
  const strip = <T extends { total: unknown }>({ total: _, ...s }: T) => s;
  return {
    asOf: { block: p.at.block.toString(), time: new Date(p.at.time * 1000).toISOString() },
    bnbUsd: feed
      ? { price: toDecString(feed.price), round: feed.round, updatedAt: feed.updatedAt }
      : null,
    sources: {
      agentSafe: strip(agentSafe),
      hot: strip(hot),
      hyperliquid: strip(hyperliquid),
      aggregated: { assets: all.assets, totalUsd: all.totalUsd },
    },
    totalUsd: all.totalUsd,
  };
}
