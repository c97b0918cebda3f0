import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { ChainReader } from "../../lib/agents/chain-reader.ts";
import { parseDec } from "../../lib/agents/decimal.ts";
import { bnbUsdAt, bscWalletHoldings } from "../../lib/agents/holdings.ts";
import { readNavHistory } from "../../lib/agents/nav.ts";
import { burnRate, type DashboardAgent, walletInventory } from "../../lib/agents/read.ts";
import { indexedHead, valueAgent } from "../../lib/agents/valuation.ts";
import type { Sql } from "../../lib/db/client.ts";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";
import { AgentParams, dataResponses } from "../http/schemas.ts";
import { readViews } from "../http/views.ts";
import { INDEX_NOT_READY_RETRY_SECONDS } from "../limits.ts";
import { AGENT_NOT_FOUND, agentOf, agentPath } from "../middleware/agent-path/index.ts";
import type { ApiSettings } from "../settings.ts";
import { BurnRate, dashboardRead, Holdings, NavPoint, WalletWithBalances } from "./schemas.ts";

const params = AgentParams;

const holdingsRoute = dashboardRead(
  "/holdings",
  "Per-asset balances with USD value, by source and aggregated",
  Holdings,
  "BNB and the service tokens of the treasury Safe (`agentSafe`) and the steward wallet (`hot`) as of the indexed head block, valued with the indexed BNB/USD feed and each token's spot price. Every figure is an exact decimal string. `hyperliquid` is the registered perps account's value (USDC) as of the perps poller's last read: `not_connected` without a perps wallet, `unavailable` before its first poll.",
);
const NAV_INTERVALS = ["1h", "1d"] as const;
const NAV_RANGES = ["7d", "30d", "all"] as const;
const navRoute = createRoute({
  method: "get",
  path: "/v2/agents/{agent}/nav-history",
  tags: ["dashboard"],
  summary: "NAV time series from hourly snapshots (daily points roll them up)",
  description:
    "Oldest first. A point the snapshot job could not value (the chain could not serve that block) has `status: missing` and a `reason`.",
  request: {
    params,
    query: z.object({
      interval: z
        .enum(NAV_INTERVALS, { error: "must be 1h or 1d" })
        .default("1h")
        .openapi({ type: "string", enum: [...NAV_INTERVALS] }),
      range: z
        .enum(NAV_RANGES, { error: "must be 7d, 30d or all" })
        .default("7d")
        .openapi({ type: "string", enum: [...NAV_RANGES] }),
    }),
  },
  responses: dataResponses(
    "The NAV series",
    z.object({
      interval: z.enum(NAV_INTERVALS),
      range: z.enum(NAV_RANGES),
      points: z.array(NavPoint),
    }),
    AGENT_NOT_FOUND,
  ),
});
const burnRoute = dashboardRead(
  "/burn-rate",
  "Burn line items, monthly USD total and runway in days",
  BurnRate,
  "Fixed items as configured; usage-based items from the last 30 days of `inference.spent` events. Runway = treasury USD (all holdings) / monthly burn × 30, rounded down; null when nothing burns.",
);
const walletsRoute = dashboardRead(
  "/wallets",
  "Registered wallets with live balances",
  z.object({
    asOf: z.object({ block: z.string(), time: z.string() }),
    items: z.array(WalletWithBalances),
  }),
  "The steward wallet and treasury Safe from the launch, then the wallets the agent registered. BSC wallets carry BNB and service-token balances as of the indexed head; other chains show `balances: null` until their pollers land.",
);

export type DashboardReadDeps = { sql: Sql; settings: ApiSettings; chain?: ChainReader };

/**
 * The dashboard reads: holdings, NAV history, burn rate, social stats, wallets.
 *
 * @example
 * registerDashboardReads(app, { sql, settings, chain: createChainReader(rpcUrl) });
 */
export function registerDashboardReads(app: OpenAPIHono<AppEnv>, d: DashboardReadDeps) {
  const schema = d.settings.viewsSchema;
  const middleware = [agentPath({ sql: d.sql })];
  const rpcDown = (cause: unknown) =>
    new HttpError("unavailable", {
      message: "the chain RPC did not answer a balance read; retry shortly",
      headers: { "Retry-After": String(INDEX_NOT_READY_RETRY_SECONDS) },
      cause,
    });
  const chain = (): ChainReader => {
    const reader = d.chain;
    if (!reader) {
      throw new HttpError("unavailable", {
        message: "no chain RPC is configured for balance reads",
        headers: { "Retry-After": String(INDEX_NOT_READY_RETRY_SECONDS) },
      });
    }
    return {
      getBalance: (address, block) =>
        reader.getBalance(address, block).catch((e: unknown) => {
          throw rpcDown(e);
        }),
      blockAt: reader.blockAt,
    };
  };
  const head = async () => {
    const h = await readViews(() => indexedHead(d.sql, schema));
    if (h) return h;
    throw new HttpError("unavailable", {
      message: "the chain index is not published yet (first backfill still running); retry shortly",
      headers: { "Retry-After": String(INDEX_NOT_READY_RETRY_SECONDS) },
    });
  };
  const perpsOf = async (a: DashboardAgent) => {
    const [p] = await d.sql<{ address: string }[]>`select address from app.agent_wallets
      where agent_id = ${a.agentId} and role = 'perps' order by created_at limit 1`;
    return p?.address ?? null;
  };
  const value = async (a: DashboardAgent) =>
    readViews(async () =>
      valueAgent({
        sql: d.sql,
        schema,
        chain: chain(),
        wallets: { treasury: a.treasuryAddress, hot: a.walletAddress, perps: await perpsOf(a) },
        at: await head(),
      }),
    );

  app.openapi({ ...holdingsRoute, middleware }, async (c) => {
    const a = agentOf(c);
    return c.json({ ok: true as const, data: await value(a) }, 200);
  });

  app.openapi({ ...navRoute, middleware }, async (c) => {
    const a = agentOf(c);
    const q = c.req.valid("query");
    const points = await readNavHistory(d.sql, a.agentId, q.interval, q.range, new Date());
    return c.json({ ok: true as const, data: { ...q, points } }, 200);
  });

  app.openapi({ ...burnRoute, middleware }, async (c) => {
    const a = agentOf(c);
    const v = await value(a);
    // Runway is measured against the treasury Safe alone (the spec's "current treasury"); the
    // agent's other holdings are reported beside it, not spent from.
    const treasuryUsd = v.sources.agentSafe.totalUsd;
    const b = await burnRate(d.sql, a.agentId, parseDec(treasuryUsd), new Date());
    return c.json(
      {
        ok: true as const,
        data: { ...b, treasuryUsd, holdingsUsd: v.totalUsd, treasuryAsOf: v.asOf },
      },
      200,
    );
  });

  app.openapi({ ...walletsRoute, middleware }, async (c) => {
    const a = agentOf(c);
    const wallets = await walletInventory(d.sql, a);
    const at = await head();
    const items = await readViews(async () => {
      const feed = await bnbUsdAt(d.sql, schema, at.block);
      const ctx = { sql: d.sql, schema, chain: chain(), at, bnbUsd: feed?.price ?? null };
      return Promise.all(
        wallets.map(async (w) => {
          if (w.chain !== "bsc") return { ...w, balances: null };
          const { total: _, ...h } = await bscWalletHoldings(ctx, w.address);
          return { ...w, balances: h };
        }),
      );
    });
    return c.json(
      {
        ok: true as const,
        data: {
          asOf: { block: at.block.toString(), time: new Date(at.time * 1000).toISOString() },
          items,
        },
      },
      200,
    );
  });
}
