import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import type { ViewRouteDeps } from "../http/read-deps.ts";
import { registerAllTrades } from "./all-trades.ts";
import { registerChart } from "./chart.ts";
import { registerHolders } from "./holders.ts";
import { registerLaunchReport } from "./launch-report.ts";
import { createRankings } from "./ranking.ts";
import { registerStats } from "./stats.ts";
import { registerTokens } from "./tokens.ts";
import { registerTrades } from "./trades.ts";
import { registerUdf } from "./udf.ts";

/**
 * The market reads: platform stats, tokens and their rankings, trades (per token and across
 * all), chart, holders, an agent token's launch report and the TradingView UDF feed, all from the indexer's views through the process's shared read cache.
 */
export function registerMarket(app: OpenAPIHono<AppEnv>, d: ViewRouteDeps) {
  const rankings = createRankings(d.sql, d.settings.viewsSchema);
  registerTokens(app, { ...d, rankings });
  registerTrades(app, d);
  registerAllTrades(app, d);
  registerStats(app, d);
  registerChart(app, d);
  registerHolders(app, d);
  registerLaunchReport(app, d);
  registerUdf(app, d);
}
