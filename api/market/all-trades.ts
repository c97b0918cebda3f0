import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { view } from "../../lib/db/views.ts";
import type { AppEnv } from "../env.ts";
import { decodeCursor } from "../http/cursor.ts";
import { cachedResponses } from "../http/read-cache.ts";
import { cachedRead, type ViewRouteDeps } from "../http/read-deps.ts";
import { Address, atIndexedBlock, CursorQuery, cursorList } from "../http/schemas.ts";
import { Trade, toTrade, tradePage } from "./trades.ts";

/** A trade of any service token: a `Trade` that names its token. */
export const MarketTrade = Trade.extend({ token: Address }).openapi("MarketTrade");

/** Wei up to 2^256 - 1: at most 78 digits, no sign, no fraction. */
const WeiQuery = z
  .string()
  .regex(/^[0-9]{1,78}$/, "must be a non-negative integer of wei (a decimal string)")
  .openapi({ example: "100000000000000000" });

const route = createRoute({
  method: "get",
  path: "/v2/trades",
  tags: ["market"],
  summary: "Trades of every service token, newest first (curve and DEX)",
  description:
    "The trade ticker. Cursor pagination over (block, log index) as `/tokens/{address}/trades`: pass `nextCursor` back as `cursor` with the same filters. `side` and `minBnbAmount` (gross BNB wei, inclusive) filter. Live: the WebSocket channel `trades`.",
  request: {
    query: CursorQuery.extend({
      side: z.enum(["buy", "sell"], { error: "must be buy or sell" }).optional(),
      minBnbAmount: WeiQuery.optional().openapi({
        description: "Only trades of at least this many BNB wei (bnbAmount)",
      }),
    }),
  },
  responses: cachedResponses("A page of trades", atIndexedBlock(cursorList(MarketTrade))),
});

type Row = Record<string, string | number>;

/** An item of `GET /v2/trades` (and of the WebSocket channel `trades`) from a `trade` row. */
export function toMarketTrade(r: Row) {
  return { ...toTrade(r), token: r.token as string };
}

/** `GET /v2/trades`, from the `trade` view, walking its (block_number, log_index) index. */
export function registerAllTrades(app: OpenAPIHono<AppEnv>, d: ViewRouteDeps) {
  const { sql } = d;
  const trades = view(sql, d.settings.viewsSchema, "trade");
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
    return cachedRead(c, d.reads, async (state) => {
      const rows = await sql<Row[]>`select * from ${trades}
        where true
          ${after ? sql`and (block_number, log_index) < (${after.blockNumber.toString()}::numeric, ${after.logIndex})` : sql``}
          ${q.side ? sql`and side = ${q.side}` : sql``}
          ${q.minBnbAmount ? sql`and bnb_amount >= ${q.minBnbAmount}::numeric` : sql``}
        order by block_number desc, log_index desc limit ${q.limit + 1}`;
      return tradePage(rows, q.limit, state.block, toMarketTrade);
    }) as never;
  });
}
