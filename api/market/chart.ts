import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { view } from "../../lib/db/views.ts";
import { type Bar, INTERVAL_SECONDS, INTERVALS } from "../../lib/market/candles.ts";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";
import { isoFromUnix } from "../http/format.ts";
import { cachedResponses, sendCached } from "../http/read-cache.ts";
import type { ViewRouteDeps } from "../http/read-deps.ts";
import {
  Address,
  AddressParams,
  errorResponse,
  flagQuery,
  IsoTime,
  intQuery,
  oneOf,
  Wei,
} from "../http/schemas.ts";
import { readViews } from "../http/views.ts";
import { CHART_LIMITS, MARKET_LIMITS } from "../limits.ts";
import { readCandles } from "./candles.ts";
import { chartItemsJson } from "./chart-json.ts";
import { Usd, usdString } from "./usd.ts";

const Price = z
  .string()
  .regex(/^[0-9]+(\.[0-9]{1,18})?$/)
  .openapi({
    description: "BNB wei per whole token (currency=bnb) or USD as an exact decimal (currency=usd)",
    example: "1500000000",
  });

export const Candle = z
  .object({
    time: IsoTime.openapi({ description: "Start of the bucket" }),
    open: Price,
    high: Price,
    low: Price,
    close: Price,
    volumeBnb: Wei,
    volumeToken: Wei,
    volumeUsd: Usd.openapi({ description: "Each trade at the BNB/USD answer current at it" }),
    tradeCount: z.number().int().nonnegative().openapi({ description: "0 in a filled bucket" }),
  })
  .openapi("Candle");

const ChartData = z
  .object({
    token: Address,
    interval: z.enum(INTERVALS),
    currency: z.enum(["bnb", "usd"]),
    items: z.array(Candle),
  })
  .openapi("Chart");

/** Unix seconds or an ISO 8601 date-time. */
export const TimeQuery = z
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
  summary: "OHLCV candles of a token, in BNB or USD",
  description:
    "Oldest first. Without `fill`, only buckets with a trade (a gap means no trade); with `fill=true`, empty buckets carry the previous close with zero volume, up to `to` or the open bucket. With more candles in [from, to] than `limit`, the latest `limit` are returned; page back with `to` = the first item's time minus one second. Ranges that end before the open bucket never change: they carry a strong `ETag` and `Cache-Control: max-age=86400`; others `max-age=5`. Send `If-None-Match` for a 304.",
  request: {
    params: AddressParams,
    query: z.object({
      interval: oneOf(INTERVALS),
      currency: z
        .enum(["bnb", "usd"], { error: "must be bnb or usd" })
        .default("bnb")
        .openapi({ description: "Prices in BNB wei per token, or in USD per token" }),
      fill: flagQuery("Fill empty buckets with the previous close and zero volume"),
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
  responses: cachedResponses("Candles", ChartData, {
    404: errorResponse("Not a token of the service"),
  }),
});

/** A bar as the chart's JSON: integers as decimal strings, USD prices as decimals. */
export function toCandle(b: Bar, currency: "bnb" | "usd") {
  const p = (v: bigint) => (currency === "usd" ? usdString(v) : v.toString());
  return {
    time: isoFromUnix(b.time),
    open: p(b.open),
    high: p(b.high),
    low: p(b.low),
    close: p(b.close),
    volumeBnb: b.volumeBnb.toString(),
    volumeToken: b.volumeToken.toString(),
    volumeUsd: usdString(b.volumeUsd),
    tradeCount: b.tradeCount,
  };
}

/** `GET /tokens/{address}/chart`, from the `candle` view. */
export function registerChart(app: OpenAPIHono<AppEnv>, d: ViewRouteDeps) {
  const { sql } = d;
  const schema = d.settings.viewsSchema;
  const tokens = view(sql, schema, "token");
  app.openapi(chartRoute, async (c) => {
    const { address } = c.req.valid("param");
    const q = c.req.valid("query");
    if (q.from !== undefined && q.to !== undefined && q.from > q.to) {
      throw new HttpError("validation_failed", {
        message: "from must not be after to",
        details: [{ path: "from", message: "must not be after to" }],
      });
    }
    const state = await d.reads.tracker.current();
    const now = state.time ?? Math.floor(Date.now() / 1000);
    const notFound = () =>
      new HttpError("not_found", { message: `no token ${address} is indexed` });
    const head = `{"ok":true,"data":{"token":${JSON.stringify(address)},"interval":"${q.interval}","currency":"${q.currency}","items":[`;
    const { interval, currency, from, to, limit } = q;
    const range = { address, interval, currency, from, to, limit };
    // Without gap filling (what chart clients read), Postgres writes the items' JSON itself.
    const json = async () => {
      const { known, items } = await chartItemsJson(sql, schema, range);
      if (!known) throw notFound();
      return `${head}${items}]}}`;
    };
    const read = async () => {
      // One round trip: the token check and the candles side by side.
      const [[known], bars] = await Promise.all([
        sql`select 1 from ${tokens} where address = ${address}`,
        readCandles(sql, schema, { ...range, fill: true, now }),
      ]);
      if (!known) throw notFound();
      return `${head}${bars.map((b) => JSON.stringify(toCandle(b, q.currency))).join(",")}]}}`;
    };
    const cached = await readViews(() =>
      d.reads.cache.getJson(c.req.url, state, q.fill ? read : json),
    );
    const sec = INTERVAL_SECONDS[q.interval];
    const closed = q.to !== undefined && q.to - (q.to % sec) + sec <= now;
    const maxAge = closed
      ? MARKET_LIMITS.closedChartMaxAgeSeconds
      : MARKET_LIMITS.openChartMaxAgeSeconds;
    return sendCached(c, cached, `public, max-age=${maxAge}`) as never;
  });
}
