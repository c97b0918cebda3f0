// The token record: the indexed row plus USD figures, 24-hour figures, agent and metadata.
import { z } from "@hono/zod-openapi";
import { dec, decOrNull, isoOrNull } from "../http/format.ts";
import { Address, IsoTime, Wei } from "../http/schemas.ts";
import { Usd, usdOrNull, weiToUsd } from "./usd.ts";

export const Token = z
  .object({
    address: Address,
    name: z.string().nullable(),
    symbol: z.string().nullable(),
    creator: Address,
    treasury: Address,
    eip8004TokenId: z
      .string()
      .nullable()
      .openapi({ description: "The agent's ERC-8004 identity NFT id, if linked" }),
    agentId: z
      .string()
      .nullable()
      .openapi({ description: "The service's agent id, when an agent launched this token" }),
    agentPageUrl: z.url().nullable().openapi({ description: "`{web_url}/agent/<token>`" }),
    image: z.string().nullable().openapi({ description: "Image URL (agent) or launch image" }),
    description: z.string().nullable(),
    status: z.enum(["registered", "curve", "graduated"]).openapi({
      description:
        "registered: announced, not created yet; curve: trading on the bonding curve; graduated: trading on the DEX pair",
    }),
    pair: Address.openapi({ description: "The DEX pair with WBNB (known before it exists)" }),
    totalSupply: Wei,
    price: Wei.openapi({ description: "Spot price: BNB wei per whole token (1e18 units)" }),
    priceUsd: Usd.nullable().openapi({
      description: "Spot price in USD at the latest indexed BNB/USD answer (null before any)",
    }),
    marketCap: Wei.openapi({ description: "Market cap in BNB wei" }),
    marketCapUsd: Usd.nullable(),
    holderCount: z.number().int().nonnegative(),
    volume: Wei.openapi({ description: "BNB wei traded through the service, curve and DEX" }),
    tradeCount: z.number().int().nonnegative(),
    lastTradeAt: IsoTime.nullable(),
    volume24hBnb: Wei.openapi({ description: "BNB wei traded in the last 24 hours" }),
    volume24hUsd: Usd.openapi({
      description: "Each trade of the last 24 hours at the BNB/USD answer current at it, summed",
    }),
    priceChange24h: z.number().nullable().openapi({
      description:
        "Percent change of the spot price against the spot price 24 hours ago (2 decimals, toward zero); null when the token is younger than 24 hours",
    }),
    trades24h: z.number().int().nonnegative(),
    buys24h: z.number().int().nonnegative(),
    sells24h: z.number().int().nonnegative(),
    uniqueTraders24h: z.number().int().nonnegative(),
    high24h: Wei.nullable().openapi({ description: "Highest execution price in 24 h (BNB wei)" }),
    low24h: Wei.nullable().openapi({ description: "Lowest execution price in 24 h (BNB wei)" }),
    liquidityBnb: Wei.nullable().openapi({
      description: "WBNB in the DEX pair (graduated and launched tokens); null without a pair",
    }),
    liquidityUsd: Usd.nullable(),
    raised: Wei.openapi({ description: "BNB wei raised on the curve" }),
    maxRaising: Wei.openapi({
      description: "BNB wei at which the curve graduates (read from the curve at creation)",
    }),
    curveProgressBps: z.number().int().min(0).max(10_000).openapi({
      description: "raised / maxRaising in basis points (10000 once graduated)",
    }),
    createdAt: IsoTime.nullable(),
    graduatedAt: IsoTime.nullable(),
    taxIncomeBnb: Wei.openapi({
      description:
        "BNB wei the token's tax brought its treasury and its holders (GET /tokens/{address}/tax `incomeBnb`): the `taxIncome` sort's key",
    }),
  })
  .openapi("Token");

export type TokenRecord = z.infer<typeof Token>;
type Row = Record<string, string | number | null>;

/** `description` and `image` from a deposit launch's metadata, when it is JSON carrying them. */
function launchMetadata(text: string | null): { description?: string; image?: string } {
  if (!text) return {};
  try {
    const m = JSON.parse(text) as Record<string, unknown>;
    return {
      description: typeof m.description === "string" ? m.description : undefined,
      image: typeof m.image === "string" ? m.image : undefined,
    };
  } catch {
    return {};
  }
}

/** Percent with 2 decimals, truncated toward zero, from exact integers. */
function percentChange(now: bigint, then: bigint): number {
  return Number(((now - then) * 10_000n) / then) / 100;
}

/**
 * A token record from a `tokenRecords` row. `now` is the indexed chain time the 24-hour window
 * ends at; `fallbackMaxRaising` serves tokens without a curve reading (deposit launches).
 */
export function toTokenRecord(
  r: Row,
  o: { now: number; fallbackMaxRaising: bigint; webUrl: string },
): TokenRecord {
  const raised = BigInt(r.funds as string);
  const maxRaising =
    r.max_raising === null ? o.fallbackMaxRaising : BigInt(r.max_raising as string);
  const progress =
    r.status === "graduated"
      ? 10_000
      : Math.min(10_000, Number((raised * 10_000n) / (maxRaising || 1n)));
  const rate = r.bnb_usd_rate as string | null;
  const price = BigInt(r.last_price as string);
  const createdAt = r.created_at === null ? null : Number(r.created_at);
  // The spot price 24 h ago: after the last trade before the window, else the creation price.
  const ref =
    r.ref_spot !== null
      ? BigInt(r.ref_spot as string)
      : createdAt !== null && createdAt <= o.now - 86_400 && r.initial_price !== null
        ? BigInt(r.initial_price as string)
        : null;
  const meta = launchMetadata(r.launch_metadata as string | null);
  const liquidity = decOrNull(r.liquidity_bnb as string | null);
  return {
    address: r.address as string,
    name: r.name as string | null,
    symbol: r.symbol as string | null,
    creator: r.creator as string,
    treasury: r.treasury as string,
    eip8004TokenId: decOrNull(r.agent_id as string | null),
    agentId: (r.app_agent_id as string | null) ?? null,
    agentPageUrl: r.app_agent_id === null ? null : `${o.webUrl}/agent/${r.address}`,
    image: (r.agent_image as string | null) ?? meta.image ?? null,
    description: (r.agent_description as string | null) ?? meta.description ?? null,
    status: r.status as "registered" | "curve" | "graduated",
    pair: r.pair as string,
    totalSupply: dec(r.total_supply as string),
    price: price.toString(),
    priceUsd: weiToUsd(price, rate),
    marketCap: dec(r.market_cap_bnb as string),
    marketCapUsd: weiToUsd(r.market_cap_bnb as string, rate),
    holderCount: Number(r.holder_count),
    volume: dec(r.total_volume_bnb as string),
    tradeCount: Number(r.trade_count),
    lastTradeAt: isoOrNull(r.last_trade_at as string | null),
    volume24hBnb: dec(r.volume24h as string),
    volume24hUsd: usdOrNull(r.volume24h_usd as string) ?? "0",
    priceChange24h: ref === null || ref === 0n ? null : percentChange(price, ref),
    trades24h: Number(r.trades24h),
    buys24h: Number(r.buys24h),
    sells24h: Number(r.sells24h),
    uniqueTraders24h: Number(r.traders24h),
    high24h: decOrNull(r.high24h as string | null),
    low24h: decOrNull(r.low24h as string | null),
    liquidityBnb: liquidity,
    liquidityUsd: liquidity === null ? null : weiToUsd(liquidity, rate),
    raised: raised.toString(),
    maxRaising: maxRaising.toString(),
    curveProgressBps: progress,
    createdAt: isoOrNull(createdAt),
    graduatedAt: isoOrNull(r.graduated_at as string | null),
    taxIncomeBnb: dec((r.tax_income_bnb as string | null) ?? "0"),
  };
}
