import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { view } from "../../lib/db/views.ts";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";
import { decodeCursor, encodeCursor, pageOf } from "../http/cursor.ts";
import { dec, isoFromUnix } from "../http/format.ts";
import { cachedResponses } from "../http/read-cache.ts";
import { cachedRead, type ViewRouteDeps } from "../http/read-deps.ts";
import {
  Address,
  AddressParams,
  atIndexedBlock,
  CursorQuery,
  cursorList,
  errorResponse,
  IsoTime,
  TxHash,
  Wei,
} from "../http/schemas.ts";
import { Usd, weiToUsd } from "./usd.ts";

export const Trade = z
  .object({
    txHash: TxHash,
    logIndex: z.number().int().nonnegative(),
    blockNumber: z.string().regex(/^[0-9]+$/),
    timestamp: IsoTime,
    venue: z.enum(["curve", "dex"]),
    side: z.enum(["buy", "sell"]),
    account: Address,
    tokenAmount: Wei,
    bnbAmount: Wei.openapi({ description: "Gross BNB wei of the trade, before fees" }),
    fee: Wei.openapi({ description: "Curve protocol fee in BNB wei (0 on the DEX)" }),
    price: Wei.openapi({ description: "Execution price: BNB wei per whole token" }),
    priceUsd: Usd.nullable().openapi({
      description: "Execution price in USD at the BNB/USD answer current at the trade",
    }),
    valueUsd: Usd.nullable().openapi({ description: "bnbAmount in USD at that answer" }),
  })
  .openapi("Trade");

const tradesRoute = createRoute({
  method: "get",
  path: "/tokens/{address}/trades",
  tags: ["tokens"],
  summary: "Trades of a token, newest first (curve and DEX)",
  description:
    "Cursor pagination over (block, log index): pass `nextCursor` back as `cursor`. Pages stay stable while new trades arrive; `nextCursor` is null on the last page.",
  request: {
    params: AddressParams,
    query: CursorQuery,
  },
  responses: cachedResponses("A page of trades", atIndexedBlock(cursorList(Trade)), {
    404: errorResponse("Not a token of the service"),
  }),
});

type Row = Record<string, string | number>;

/** `GET /tokens/{address}/trades`, from the `trade` view (the chart is in chart.ts). */
export function registerTrades(app: OpenAPIHono<AppEnv>, d: ViewRouteDeps) {
  const { sql } = d;
  const schema = d.settings.viewsSchema;
  const tokens = view(sql, schema, "token");
  const trades = view(sql, schema, "trade");
  const known = async (address: string) => {
    const [r] = await sql`select 1 from ${tokens} where address = ${address}`;
    if (!r) throw new HttpError("not_found", { message: `no token ${address} is indexed` });
  };

  app.openapi(tradesRoute, async (c) => {
    const { address } = c.req.valid("param");
    const q = c.req.valid("query");
    const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
    // The row comparison walks the (token, block_number, log_index) index backwards.
    return cachedRead(c, d.reads, async (state) => {
      const [, rows] = await Promise.all([
        known(address),
        sql<Row[]>`select * from ${trades} where token = ${address}
          ${after ? sql`and (token, block_number, log_index) < (${address}, ${after.blockNumber.toString()}::numeric, ${after.logIndex})` : sql``}
          order by token desc, block_number desc, log_index desc limit ${q.limit + 1}`,
      ]);
      return tradePage(rows, q.limit, state.block, toTrade);
    }) as never;
  });
}

/** A page of trade rows (read one past `limit`) as the trade lists answer it. */
export function tradePage<T>(
  rows: Row[],
  limit: number,
  indexedBlock: string | null,
  item: (r: Row) => T,
) {
  const { page, nextCursor } = pageOf(rows, limit, tradeCursor);
  return { ok: true as const, data: { items: page.map(item), nextCursor, indexedBlock } };
}

/** The cursor after a trade row: its position in the chain's order. */
export function tradeCursor(r: Row): string {
  return encodeCursor({
    blockNumber: BigInt(r.block_number as string),
    logIndex: Number(r.log_index),
  });
}

export function toTrade(r: Row) {
  return {
    txHash: r.tx_hash as string,
    logIndex: Number(r.log_index),
    blockNumber: dec(r.block_number as string),
    timestamp: isoFromUnix(r.timestamp as string),
    venue: r.venue as "curve" | "dex",
    side: r.side as "buy" | "sell",
    account: r.account as string,
    tokenAmount: dec(r.token_amount as string),
    bnbAmount: dec(r.bnb_amount as string),
    fee: dec(r.fee as string),
    price: dec(r.price as string),
    priceUsd: weiToUsd(r.price as string, r.bnb_usd as string | null),
    valueUsd: weiToUsd(r.bnb_amount as string, r.bnb_usd as string | null),
  };
}
