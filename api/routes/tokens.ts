import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Sql } from "../../lib/db/client.ts";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";
import { dec, isoOrNull } from "../format.ts";
import {
  Address,
  AddressInput,
  COMMON_ERRORS,
  ErrorEnvelope,
  IsoTime,
  jsonResponse,
  OffsetQuery,
  offsetList,
  okEnvelope,
  Wei,
} from "../schemas.ts";
import type { ApiSettings } from "../settings.ts";
import { readViews, view } from "../views.ts";

const SORTS = ["newest", "volume"] as const;

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
    status: z.enum(["registered", "curve", "graduated"]).openapi({
      description:
        "registered: announced, not created yet; curve: trading on the bonding curve; graduated: trading on the DEX pair",
    }),
    pair: Address.openapi({ description: "The DEX pair with WBNB (known before it exists)" }),
    totalSupply: Wei,
    price: Wei.openapi({ description: "Spot price: BNB wei per whole token (1e18 units)" }),
    marketCap: Wei.openapi({ description: "Market cap in BNB wei" }),
    holderCount: z.number().int().nonnegative(),
    volume: Wei.openapi({ description: "BNB wei traded through the service, curve and DEX" }),
    tradeCount: z.number().int().nonnegative(),
    raised: Wei.openapi({ description: "BNB wei raised on the curve" }),
    maxRaising: Wei.openapi({
      description: "BNB wei at which the curve graduates (read from the curve at creation)",
    }),
    curveProgressBps: z.number().int().min(0).max(10_000).openapi({
      description: "raised / maxRaising in basis points (10000 once graduated)",
    }),
    createdAt: IsoTime.nullable(),
    graduatedAt: IsoTime.nullable(),
  })
  .openapi("Token");

const listRoute = createRoute({
  method: "get",
  path: "/tokens",
  tags: ["tokens"],
  summary: "Tokens of the service",
  request: {
    query: OffsetQuery.extend({
      sort: z
        .enum(SORTS, { error: `must be one of ${SORTS.join(", ")}` })
        .default("newest")
        .openapi({ description: "newest first, or by BNB volume (largest first)" }),
    }),
  },
  responses: {
    200: jsonResponse("A page of tokens", okEnvelope(offsetList(Token))),
    ...COMMON_ERRORS,
  },
});

const detailRoute = createRoute({
  method: "get",
  path: "/tokens/{address}",
  tags: ["tokens"],
  summary: "One token: price, market cap, holders, volume, curve progress",
  request: { params: z.object({ address: AddressInput }) },
  responses: {
    200: jsonResponse("The token", okEnvelope(Token)),
    404: jsonResponse("Not a token of the service, or not indexed yet", ErrorEnvelope),
    ...COMMON_ERRORS,
  },
});

type TokenRow = Record<string, string | number | null> & { total?: string };

/** `fallbackMaxRaising` serves tokens the index has no curve reading for (deposit launches). */
function toToken(r: TokenRow, fallbackMaxRaising: bigint) {
  const raised = BigInt(r.funds as string);
  const maxRaising = r.max_raising === null ? fallbackMaxRaising : BigInt(r.max_raising as string);
  const progress =
    r.status === "graduated"
      ? 10_000
      : Math.min(10_000, Number((raised * 10_000n) / (maxRaising || 1n)));
  return {
    address: r.address as string,
    name: r.name as string | null,
    symbol: r.symbol as string | null,
    creator: r.creator as string,
    treasury: r.treasury as string,
    eip8004TokenId: r.agent_id === null ? null : dec(r.agent_id as string),
    status: r.status as "registered" | "curve" | "graduated",
    pair: r.pair as string,
    totalSupply: dec(r.total_supply as string),
    price: dec(r.last_price as string),
    marketCap: dec(r.market_cap_bnb as string),
    holderCount: Number(r.holder_count),
    volume: dec(r.total_volume_bnb as string),
    tradeCount: Number(r.trade_count),
    raised: raised.toString(),
    maxRaising: maxRaising.toString(),
    curveProgressBps: progress,
    createdAt: isoOrNull(r.created_at as string | null),
    graduatedAt: isoOrNull(r.graduated_at as string | null),
  };
}

export type TokenRouteDeps = { sql: Sql; settings: ApiSettings };

/** `GET /tokens` and `GET /tokens/{address}`, from the `token` view. */
export function registerTokens(app: OpenAPIHono<AppEnv>, d: TokenRouteDeps) {
  const { sql } = d;
  const t = view(sql, d.settings.viewsSchema, "token");
  const max = d.settings.curveMaxRaisingWei;
  app.openapi(listRoute, async (c) => {
    const q = c.req.valid("query");
    const order =
      q.sort === "volume"
        ? sql`total_volume_bnb desc, address`
        : sql`coalesce(created_block, registered_block) desc, address`;
    const [rows, [count]] = await readViews(() =>
      Promise.all([
        sql<TokenRow[]>`select * from ${t} order by ${order} limit ${q.limit} offset ${q.offset}`,
        sql<{ n: bigint }[]>`select count(*) as n from ${t}`,
      ]),
    );
    return c.json(
      {
        ok: true as const,
        data: {
          items: rows.map((r) => toToken(r, max)),
          total: Number(count?.n ?? 0),
          limit: q.limit,
          offset: q.offset,
        },
      },
      200,
    );
  });
  app.openapi(detailRoute, async (c) => {
    const { address } = c.req.valid("param");
    const [r] = await readViews(
      () => sql<TokenRow[]>`select * from ${t} where address = ${address}`,
    );
    if (!r) throw new HttpError("not_found", { message: `no token ${address} is indexed` });
    return c.json({ ok: true as const, data: toToken(r, max) }, 200);
  });
}
