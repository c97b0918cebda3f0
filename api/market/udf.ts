import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { formatUnits } from "viem";
import { view } from "../../lib/db/views.ts";
import { type Bar, INTERVAL_SECONDS, type Interval } from "../../lib/market/candles.ts";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";
import { REVALIDATE, sendCached } from "../http/read-cache.ts";
import type { ViewRouteDeps } from "../http/read-deps.ts";
import {
  COMMON_ERRORS,
  errorResponse,
  intQuery,
  jsonResponse,
  NOT_MODIFIED,
} from "../http/schemas.ts";
import { readViews } from "../http/views.ts";
import { CHART_LIMITS, MARKET_LIMITS } from "../limits.ts";
import { readCandles } from "./candles.ts";

// A TradingView UDF datafeed (https://www.tradingview.com/charting-library-docs/latest/connecting_data/UDF/)
// over the same candles as /tokens/{address}/chart. Symbols: a token address or a unique ticker,
// priced in BNB; with the suffix `/USD`, priced in USD.

/** UDF resolutions and the candle intervals behind them. */
const RESOLUTIONS: Record<string, Interval> = {
  "1": "1m",
  "5": "5m",
  "15": "15m",
  "60": "1h",
  "240": "4h",
  "1D": "1d",
  D: "1d",
};
const SUPPORTED = ["1", "5", "15", "60", "240", "1D"];
const EXCHANGE = "Launchpad";

const SymbolQuery = z
  .string()
  .min(1, "must not be empty")
  .max(MARKET_LIMITS.maxSymbolLength, `must be at most ${MARKET_LIMITS.maxSymbolLength} characters`)
  .openapi({ description: "Token address or unique ticker; append `/USD` for USD prices" });

const UdfConfig = z
  .object({
    supported_resolutions: z.array(z.string()),
    supports_group_request: z.boolean(),
    supports_marks: z.boolean(),
    supports_search: z.boolean(),
    supports_timescale_marks: z.boolean(),
    supports_time: z.boolean(),
    exchanges: z.array(z.object({ value: z.string(), name: z.string(), desc: z.string() })),
    symbols_types: z.array(z.object({ name: z.string(), value: z.string() })),
  })
  .openapi("UdfConfig");

const UdfSymbol = z
  .object({
    name: z.string(),
    ticker: z.string(),
    description: z.string(),
    type: z.literal("crypto"),
    session: z.literal("24x7"),
    timezone: z.literal("Etc/UTC"),
    exchange: z.string(),
    listed_exchange: z.string(),
    minmov: z.number().int(),
    pricescale: z.number().int(),
    has_intraday: z.boolean(),
    has_daily: z.boolean(),
    has_weekly_and_monthly: z.boolean(),
    supported_resolutions: z.array(z.string()),
    intraday_multipliers: z.array(z.string()),
    volume_precision: z.number().int(),
    data_status: z.literal("streaming"),
    currency_code: z.enum(["BNB", "USD"]),
    format: z.literal("price"),
  })
  .openapi("UdfSymbol");

const UdfSearchItem = z
  .object({
    symbol: z.string(),
    full_name: z.string(),
    description: z.string(),
    exchange: z.string(),
    ticker: z.string(),
    type: z.literal("crypto"),
  })
  .openapi("UdfSearchItem");

const UdfHistory = z
  .object({
    s: z.enum(["ok", "no_data"]),
    t: z.array(z.number().int()).optional(),
    o: z.array(z.number()).optional(),
    h: z.array(z.number()).optional(),
    l: z.array(z.number()).optional(),
    c: z.array(z.number()).optional(),
    v: z.array(z.number()).optional(),
    nextTime: z.number().int().optional().openapi({
      description: "With no_data: the time of the latest bar before `from`, if any",
    }),
  })
  .openapi("UdfHistory");

const unix = intQuery({ min: 0, max: 99_999_999_999, default: 0, description: "unix seconds" });

const routes = {
  config: createRoute({
    method: "get",
    path: "/udf/config",
    tags: ["udf"],
    summary: "TradingView UDF: datafeed configuration",
    responses: { 200: jsonResponse("Configuration", UdfConfig), ...COMMON_ERRORS },
  }),
  symbols: createRoute({
    method: "get",
    path: "/udf/symbols",
    tags: ["udf"],
    summary: "TradingView UDF: resolve a symbol",
    request: { query: z.object({ symbol: SymbolQuery }) },
    responses: {
      200: jsonResponse("Symbol information", UdfSymbol),
      404: errorResponse("Unknown or ambiguous symbol"),
      ...COMMON_ERRORS,
    },
  }),
  search: createRoute({
    method: "get",
    path: "/udf/search",
    tags: ["udf"],
    summary: "TradingView UDF: search symbols by name or ticker prefix, or address",
    request: {
      query: z.object({
        query: z
          .string()
          .max(
            MARKET_LIMITS.maxSearchLength,
            `must be at most ${MARKET_LIMITS.maxSearchLength} characters`,
          )
          .default(""),
        type: z.string().max(MARKET_LIMITS.maxSearchLength).optional(),
        exchange: z.string().max(MARKET_LIMITS.maxSearchLength).optional(),
        limit: intQuery({
          min: 1,
          max: MARKET_LIMITS.udfSearchMax,
          default: MARKET_LIMITS.udfSearchDefault,
          description: `results, 1-${MARKET_LIMITS.udfSearchMax}`,
        }),
      }),
    },
    responses: { 200: jsonResponse("Matches", z.array(UdfSearchItem)), ...COMMON_ERRORS },
  }),
  history: createRoute({
    method: "get",
    path: "/udf/history",
    tags: ["udf"],
    summary: "TradingView UDF: bars of [from, to)",
    description: `The same candles as /tokens/{address}/chart (bars with trades). \`countback\` (bars ending before \`to\`) takes precedence over \`from\`; at most ${CHART_LIMITS.maxLimit} bars, the latest of the range. A range whose last bar has closed never changes: it carries a strong \`ETag\` and \`Cache-Control: public, max-age=${MARKET_LIMITS.closedChartMaxAgeSeconds}\`; a range that reaches the open bar is \`no-cache\`. Send \`If-None-Match\` for a 304.`,
    request: {
      query: z.object({
        symbol: SymbolQuery,
        resolution: z.enum(SUPPORTED.concat("D") as [string, ...string[]], {
          error: `must be one of ${SUPPORTED.join(", ")}`,
        }),
        from: unix,
        to: unix,
        countback: intQuery({
          min: 1,
          max: CHART_LIMITS.maxLimit,
          default: CHART_LIMITS.maxLimit,
          description: "bars wanted, ending before `to`",
        }),
      }),
    },
    responses: {
      200: jsonResponse("Bars, or no_data", UdfHistory),
      ...NOT_MODIFIED,
      404: errorResponse("Unknown or ambiguous symbol"),
      ...COMMON_ERRORS,
    },
  }),
  time: createRoute({
    method: "get",
    path: "/udf/time",
    tags: ["udf"],
    summary: "TradingView UDF: server time (unix seconds, plain text)",
    responses: {
      200: {
        description: "Unix seconds",
        content: { "text/plain": { schema: z.string().regex(/^[0-9]+$/) } },
      },
      ...COMMON_ERRORS,
    },
  }),
};

type Resolved = { address: string; symbol: string | null; name: string | null; usd: boolean };

/** Decimal places that show about four significant digits of `price` (integer, 18 decimals). */
function priceScale(price: bigint): number {
  const digits = price > 0n ? price.toString().length : 1;
  return 10 ** Math.min(18, Math.max(2, 22 - digits));
}

const num = (v: bigint) => Number(formatUnits(v, 18));

/** The `/udf/*` TradingView datafeed. */
export function registerUdf(app: OpenAPIHono<AppEnv>, d: ViewRouteDeps) {
  const { sql } = d;
  const schema = d.settings.viewsSchema;
  const tokens = view(sql, schema, "token");
  const latest = view(sql, schema, "bnb_usd_latest");

  async function resolve(
    symbol: string,
  ): Promise<Resolved & { price: bigint; rate: bigint | null }> {
    const usd = /\/USD$/i.test(symbol);
    const key = usd ? symbol.slice(0, -4) : symbol;
    const byAddress = /^0x[0-9a-fA-F]{40}$/.test(key);
    const rows = await sql<Record<string, string | null>[]>`
      select t.address, t.symbol, t.name, t.last_price::text as price, r.rate::text as rate
      from ${tokens} t left join ${latest} r on r.id = 'latest'
      where ${byAddress ? sql`t.address = ${key.toLowerCase()}` : sql`upper(t.symbol) = ${key.toUpperCase()}`}
      limit 2`;
    const [r] = rows;
    if (!r || rows.length > 1) {
      throw new HttpError("not_found", {
        message: r
          ? `ticker ${key} is not unique: use the token address`
          : `unknown symbol ${symbol}`,
      });
    }
    return {
      address: r.address as string,
      symbol: r.symbol ?? null,
      name: r.name ?? null,
      usd,
      price: BigInt(r.price as string),
      rate: r.rate === null ? null : BigInt(r.rate as string),
    };
  }

  app.openapi(routes.config, (c) =>
    c.json(
      {
        supported_resolutions: SUPPORTED,
        supports_group_request: false,
        supports_marks: false,
        supports_search: true,
        supports_timescale_marks: false,
        supports_time: true,
        exchanges: [{ value: EXCHANGE, name: EXCHANGE, desc: "Tokens of the service" }],
        symbols_types: [{ name: "crypto", value: "crypto" }],
      },
      200,
    ),
  );

  app.openapi(routes.symbols, async (c) => {
    const r = await readViews(() => resolve(c.req.valid("query").symbol));
    const quote = r.usd ? ("USD" as const) : ("BNB" as const);
    const shown = r.usd && r.rate !== null ? (r.price * r.rate) / 10n ** 18n : r.price;
    const ticker = r.usd ? `${r.address}/USD` : r.address;
    return c.json(
      {
        name: `${r.symbol ?? r.address}${r.usd ? "/USD" : ""}`,
        ticker,
        description: `${r.name ?? r.address} in ${quote}`,
        type: "crypto" as const,
        session: "24x7" as const,
        timezone: "Etc/UTC" as const,
        exchange: EXCHANGE,
        listed_exchange: EXCHANGE,
        minmov: 1,
        pricescale: priceScale(shown),
        has_intraday: true,
        has_daily: true,
        has_weekly_and_monthly: false,
        supported_resolutions: SUPPORTED,
        intraday_multipliers: ["1", "5", "15", "60", "240"],
        volume_precision: 4,
        data_status: "streaming" as const,
        currency_code: quote,
        format: "price" as const,
      },
      200,
    );
  });

  app.openapi(routes.search, async (c) => {
    const q = c.req.valid("query");
    const text = q.query.trim();
    const like = `${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
    const rows = await readViews(
      () => sql<Record<string, string | null>[]>`select address, name, symbol from ${tokens}
        where ${
          /^0x[0-9a-fA-F]{40}$/.test(text)
            ? sql`address = ${text.toLowerCase()}`
            : sql`(name ilike ${like} or symbol ilike ${like})`
        }
        order by market_cap_bnb desc, address limit ${q.limit}`,
    );
    return c.json(
      rows.map((r) => ({
        symbol: r.symbol ?? (r.address as string),
        full_name: `${EXCHANGE}:${r.address}`,
        description: r.name ?? "",
        exchange: EXCHANGE,
        ticker: r.address as string,
        type: "crypto" as const,
      })),
      200,
    );
  });

  app.openapi(routes.history, async (c) => {
    const q = c.req.valid("query");
    if (q.from >= q.to) {
      throw new HttpError("validation_failed", {
        message: "from must be before to",
        details: [{ path: "from", message: "must be before to" }],
      });
    }
    const interval = RESOLUTIONS[q.resolution] as Interval;
    const sec = INTERVAL_SECONDS[interval];
    const countback = c.req.query("countback") !== undefined;
    const state = await d.reads.tracker.current();
    const now = state.time ?? Math.floor(Date.now() / 1000);
    const read = async () => {
      const r = await resolve(q.symbol);
      const read = (o: { from?: number; to: number; limit: number }) =>
        readCandles(sql, schema, {
          address: r.address,
          interval,
          currency: r.usd ? "usd" : "bnb",
          fill: false,
          now,
          ...o,
        });
      const bars = await read({
        from: countback ? undefined : Math.ceil(q.from / sec) * sec,
        to: q.to - 1,
        limit: q.countback,
      });
      if (bars.length) return { s: "ok" as const, ...columns(bars) };
      // UDF's no_data carries where the previous bar is, so the chart stops asking further back.
      const [prev] = await read({
        to: (countback ? q.to : Math.ceil(q.from / sec) * sec) - 1,
        limit: 1,
      });
      return { s: "no_data" as const, ...(prev ? { nextTime: prev.time } : {}) };
    };
    const cached = await readViews(() => d.reads.cache.get(c.req.url, state, read));
    // A range whose last bar's bucket has closed never changes (as /tokens/:a/chart): charts
    // and proxies may keep it; a range that reaches the open bucket is revalidated every time.
    const last = q.to - 1;
    const closed = last - (last % sec) + sec <= now;
    const cacheControl = closed
      ? `public, max-age=${MARKET_LIMITS.closedChartMaxAgeSeconds}`
      : REVALIDATE;
    return sendCached(c, cached, cacheControl) as never;
  });

  app.openapi(routes.time, (c) => c.text(String(Math.floor(Date.now() / 1000)), 200));
}

/** Bars as UDF's column arrays (numbers: the UDF format has no decimal strings). */
function columns(bars: Bar[]) {
  return {
    t: bars.map((b) => b.time),
    o: bars.map((b) => num(b.open)),
    h: bars.map((b) => num(b.high)),
    l: bars.map((b) => num(b.low)),
    c: bars.map((b) => num(b.close)),
    v: bars.map((b) => num(b.volumeBnb)),
  };
}
