import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Sql } from "../../lib/db/client.ts";
import { PERPS_CHANGED_CHANNEL } from "../../lib/pollers/sources.ts";
import { UsdDecimal } from "../dashboard/schemas.ts";
import type { AppEnv } from "../env.ts";
import { listenPollVersions } from "../http/poll-versions.ts";
import { REVALIDATE, sendCached } from "../http/read-cache.ts";
import type { ReadDeps } from "../http/read-deps.ts";
import {
  Address,
  AgentParams,
  dataResponses,
  errorResponse,
  IsoTime,
  oneOf,
} from "../http/schemas.ts";
import { createVersionCache } from "../http/version-cache.ts";
import { READ_CACHE_LIMITS } from "../limits.ts";
import { agentOf, agentPath } from "../middleware/agent-path/index.ts";
import { perpsVersion, readPerpsAccount } from "./account.ts";
import { PNL_WINDOWS, readPnlSeriesJson } from "./pnl-series.ts";

// The agent's perps venue account (Hyperliquid) as the perps poller stored it: no request
// here reaches the venue, so a page polling these reads spends none of the venue's budget.

const Price = UsdDecimal.openapi({ example: "65000.5", description: "exact decimal string" });

const PerpsPosition = z
  .object({
    coin: z.string().openapi({ example: "BTC" }),
    side: z.enum(["long", "short"]),
    size: z
      .string()
      .regex(/^[0-9]+(\.[0-9]+)?$/)
      .openapi({ example: "0.15" }),
    entryPrice: Price,
    markPrice: Price.nullable().openapi({
      description:
        "The venue's valuation of the position over its size, rounded down to 8 decimals",
    }),
    positionValue: UsdDecimal,
    leverage: z.object({ type: z.enum(["cross", "isolated"]), value: z.number() }),
    liquidationPrice: Price.nullable(),
    unrealizedPnl: UsdDecimal,
    marginUsed: UsdDecimal,
  })
  .openapi("PerpsPosition");

const PerpsAccount = z
  .object({
    address: Address.nullable().openapi({ description: "The agent's perps wallet; null if none" }),
    status: z.enum(["ok", "pending", "not_connected"]).openapi({
      description:
        "`not_connected`: no perps wallet registered; `pending`: not polled yet (every figure 0)",
    }),
    asOf: IsoTime.nullable().openapi({
      description:
        "The venue's time of the account state, as the perps poller last read it (null: not polled yet): how old every figure here is. The pollers share the venue's rate limit across agents and refresh watched agents first (AGENT.md \"How old polled data is\").",
    }),
    accountValue: UsdDecimal,
    withdrawable: UsdDecimal,
    marginUsed: UsdDecimal,
    positions: z.array(PerpsPosition),
    pnl: z.object({
      realized: UsdDecimal.openapi({ description: "Sum of the stored fills' `closedPnl`" }),
      fees: UsdDecimal.openapi({ description: "Sum of the stored fills' fees" }),
      unrealized: UsdDecimal.openapi({ description: "Sum of the open positions' unrealized PnL" }),
      total: UsdDecimal.openapi({ description: "realized - fees + unrealized" }),
    }),
    trades: z.object({
      fills: z.number().int().nonnegative(),
      wins: z.number().int().nonnegative().openapi({ description: "Fills with closedPnl > 0" }),
      losses: z.number().int().nonnegative().openapi({ description: "Fills with closedPnl < 0" }),
    }),
  })
  .openapi("PerpsAccount");

const PnlPoint = z
  .object({
    time: IsoTime,
    accountValue: UsdDecimal,
    netFlows: UsdDecimal.openapi({
      description: "Deposits minus withdrawals (with their fee) since the window's first point",
    }),
    pnl: UsdDecimal.openapi({
      description: "accountValue - the first point's accountValue - netFlows",
    }),
  })
  .openapi("PerpsPnlPoint");

const PerpsPnl = z
  .object({
    address: Address.nullable(),
    window: z.enum(PNL_WINDOWS),
    from: IsoTime.nullable().openapi({ description: "Start of the window; null for `all`" }),
    points: z.array(PnlPoint),
    pnl: UsdDecimal.openapi({ description: "The last point's pnl: the window's trading PnL" }),
  })
  .openapi("PerpsPnl");

const NOT_FOUND = { 404: errorResponse("No agent has this token address or id") };

const accountRoute = createRoute({
  method: "get",
  path: "/v2/agents/{agent}/perps",
  tags: ["dashboard"],
  summary: "Perps account: value, open positions, realized/unrealized/total PnL, wins and losses",
  description:
    "As the perps poller last read the venue (`asOf`). An agent without a perps wallet answers `status: not_connected` with every figure 0, not an error. Money is USDC as exact decimal strings.",
  request: { params: AgentParams },
  responses: dataResponses("The perps account", PerpsAccount, NOT_FOUND),
});

const pnlRoute = createRoute({
  method: "get",
  path: "/v2/agents/{agent}/perps/pnl",
  tags: ["dashboard"],
  summary: "Perps PnL series over a window, deposits and withdrawals excluded",
  description:
    "Oldest first: the account value the venue reported at the last poll of each hour in the window, then at the last poll; each point's `pnl` is its change since the window's first point minus the venue ledger's deposits and withdrawals in between. Starts at the first poll in the window.",
  request: {
    params: AgentParams,
    query: z.object({
      window: oneOf(PNL_WINDOWS)
        .default("7d")
        .openapi({ type: "string", enum: [...PNL_WINDOWS] }),
    }),
  },
  responses: dataResponses("The PnL series", PerpsPnl, NOT_FOUND),
});

/**
 * The perps reads of an agent: its account and its PnL series.
 *
 * @example
 * registerPerps(app, { sql, reads });
 */
export function registerPerps(app: OpenAPIHono<AppEnv>, d: { sql: Sql; reads: ReadDeps }) {
  // A public read: the agent's resolution is kept per indexed generation.
  const middleware = [agentPath({ sql: d.sql, tracker: d.reads.tracker })];
  // One computation per poll of the account. The version: the poller's notification counted
  // in memory (no query), or, while not listening, the last poll's time (a primary-key read).
  const cache = createVersionCache({
    maxAgeMs: READ_CACHE_LIMITS.polledMaxAgeMs,
    maxTotalBytes: READ_CACHE_LIMITS.perpsMaxTotalBytes,
  });
  const polls = listenPollVersions(d.sql, PERPS_CHANGED_CHANNEL);
  const version = async (id: string) =>
    polls.version(id) ?? `db:${(await perpsVersion(d.sql, id)).version}`;
  app.openapi({ ...accountRoute, middleware }, async (c) => {
    const id = agentOf(c).agentId;
    const body = await cache.get(`${id} ${c.req.path}`, await version(id), async () => ({
      ok: true as const,
      data: await readPerpsAccount(d.sql, id),
    }));
    return sendCached(c, body, REVALIDATE) as never;
  });
  app.openapi({ ...pnlRoute, middleware }, async (c) => {
    const { window } = c.req.valid("query");
    const id = agentOf(c).agentId;
    const key = `${id} ${c.req.path} ${window}`;
    const body = await cache.getJson(key, await version(id), async () => {
      const { address } = await perpsVersion(d.sql, id);
      const data = await readPnlSeriesJson(d.sql, { agentId: id, address }, window, new Date());
      return { json: `{"ok":true,"data":${data.json}}`, expiresAt: data.expiresAt };
    });
    return sendCached(c, body, REVALIDATE) as never;
  });
}
