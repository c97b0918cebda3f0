import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Sql } from "../../lib/db/client.ts";
import { decodeCursor, encodeCursor } from "../cursor.ts";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";
import { dec, isoFromUnix } from "../format.ts";
import { CHART_LIMITS, PAGINATION } from "../limits.ts";
import {
  Address,
  AddressInput,
  COMMON_ERRORS,
  cursorList,
  ErrorEnvelope,
  IsoTime,
  intQuery,
  jsonResponse,
  okEnvelope,
  TxHash,
  Wei,
} from "../schemas.ts";
import type { ApiSettings } from "../settings.ts";
import { readViews, view } from "../views.ts";

const INTERVALS = ["1m", "5m", "15m", "1h", "1d"] as const;

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
  })
  .openapi("Trade");

export const Candle = z
  .object({
    time: IsoTime.openapi({ description: "Start of the bucket" }),
    open: Wei,
    high: Wei,
    low: Wei,
    close: Wei,
    volumeBnb: Wei,
    volumeToken: Wei,
    tradeCount: z.number().int().positive(),
  })
  .openapi("Candle");

const ChartData = z
  .object({
    token: Address,
    interval: z.enum(INTERVALS),
    items: z.array(Candle),
  })
  .openapi("Chart");

const tokenParam = z.object({ address: AddressInput });

const tradesRoute = createRoute({
  method: "get",
  path: "/tokens/{address}/trades",
  tags: ["tokens"],
  summary: "Trades of a token, newest first (curve and DEX)",
  description:
    "Cursor pagination over (block, log index): pass `nextCursor` back as `cursor`. Pages stay stable while new trades arrive; `nextCursor` is null on the last page.",
  request: {
    params: tokenParam,
    query: z.object({
      limit: intQuery({
        min: 1,
        max: PAGINATION.maxLimit,
        default: PAGINATION.defaultLimit,
        description: `trades per page, 1-${PAGINATION.maxLimit}`,
      }),
      cursor: z.string().optional().openapi({ description: "`nextCursor` of the previous page" }),
    }),
  },
  responses: {
    200: jsonResponse("A page of trades", okEnvelope(cursorList(Trade))),
    404: jsonResponse("Not a token of the service", ErrorEnvelope),
    ...COMMON_ERRORS,
  },
});

/** Unix seconds or an ISO 8601 date-time. */
const TimeQuery = z
  .string()
  .transform((v, ctx) => {
    const ms = /^\d{1,11}$/.test(v) ? Number(v) * 1000 : Date.parse(v);
    if (Number.isNaN(ms)) {
      ctx.addIssue({ code: "custom", message: "must be unix seconds or an ISO 8601 date-time" });
      return z.NEVER;
    }
    return Math.floor(ms / 1000);
  })
  .openapi({ type: "string", example: "2026-01-02T00:00:00Z" });

const chartRoute = createRoute({
  method: "get",
  path: "/tokens/{address}/chart",
  tags: ["tokens"],
  summary: "OHLCV candles of a token",
  description:
    "Buckets with at least one trade, oldest first; empty buckets are not filled (a gap means no trade: carry the previous close forward). With more candles in [from, to] than `limit`, the latest `limit` are returned; page back with `to` = the first item's time minus one second.",
  request: {
    params: tokenParam,
    query: z.object({
      interval: z.enum(INTERVALS, { error: `must be one of ${INTERVALS.join(", ")}` }),
      from: TimeQuery.optional().openapi({ description: "first bucket start (inclusive)" }),
      to: TimeQuery.optional().openapi({ description: "last bucket start (inclusive)" }),
      limit: intQuery({
        min: 1,
        max: CHART_LIMITS.maxLimit,
        default: CHART_LIMITS.defaultLimit,
        description: `candles, 1-${CHART_LIMITS.maxLimit}`,
      }),
    }),
  },
  responses: {
    200: jsonResponse("Candles", okEnvelope(ChartData)),
    404: jsonResponse("Not a token of the service", ErrorEnvelope),
    ...COMMON_ERRORS,
  },
});

type Row = Record<string, string | number>;

export type MarketRouteDeps = { sql: Sql; settings: ApiSettings };

/** `GET /tokens/{address}/trades` and `/chart`, from the `trade` and `candle` views. */
export function registerMarket(app: OpenAPIHono<AppEnv>, d: MarketRouteDeps) {
  const { sql } = d;
  const schema = d.settings.viewsSchema;
  const tokens = view(sql, schema, "token");
  const trades = view(sql, schema, "trade");
  const candles = view(sql, schema, "candle");
  const known = async (address: string) => {
    const [r] = await sql`select 1 from ${tokens} where address = ${address}`;
    if (!r) throw new HttpError("not_found", { message: `no token ${address} is indexed` });
  };

  app.openapi(tradesRoute, async (c) => {
    const { address } = c.req.valid("param");
    const q = c.req.valid("query");
    const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
    // The row comparison walks the (token, block_number, log_index) index backwards.
    const [, rows] = await readViews(() =>
      Promise.all([
        known(address),
        sql<Row[]>`select * from ${trades} where token = ${address}
          ${after ? sql`and (token, block_number, log_index) < (${address}, ${after.blockNumber.toString()}::numeric, ${after.logIndex})` : sql``}
          order by token desc, block_number desc, log_index desc limit ${q.limit + 1}`,
      ]),
    );
    const page = rows.slice(0, q.limit);
    const last = page.at(-1);
    const nextCursor =
      rows.length > q.limit && last
        ? encodeCursor({
            blockNumber: BigInt(last.block_number as string),
            logIndex: Number(last.log_index),
          })
        : null;
    return c.json({ ok: true as const, data: { items: page.map(toTrade), nextCursor } }, 200);
  });

  app.openapi(chartRoute, async (c) => {
    const { address } = c.req.valid("param");
    const q = c.req.valid("query");
    if (q.from !== undefined && q.to !== undefined && q.from > q.to) {
      throw new HttpError("validation_failed", {
        message: "from must not be after to",
        details: [{ path: "from", message: "must not be after to" }],
      });
    }
    const [, rows] = await readViews(() =>
      Promise.all([
        known(address),
        sql<Row[]>`select * from ${candles}
          where token = ${address} and interval = ${q.interval}
          ${q.from === undefined ? sql`` : sql`and bucket_start >= ${q.from}`}
          ${q.to === undefined ? sql`` : sql`and bucket_start <= ${q.to}`}
          order by bucket_start desc limit ${q.limit}`,
      ]),
    );
    return c.json(
      {
        ok: true as const,
        data: { token: address, interval: q.interval, items: rows.reverse().map(toCandle) },
      },
      200,
    );
  });
}

function toTrade(r: Row) {
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
  };
}

function toCandle(r: Row) {
  return {
    time: isoFromUnix(r.bucket_start as string),
    open: dec(r.open as string),
    high: dec(r.high as string),
    low: dec(r.low as string),
    close: dec(r.close as string),
    volumeBnb: dec(r.volume_bnb as string),
    volumeToken: dec(r.volume_token as string),
    tradeCount: Number(r.trade_count),
  };
}
