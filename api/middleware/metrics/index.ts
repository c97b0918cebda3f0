import type { MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { ARBITRUM_CHAIN_ID } from "../../../lib/arbitrum.ts";
import type { Sql } from "../../../lib/db/client.ts";
import { rpcHeadBlock } from "../../../lib/indexer/lag.ts";
import { judgeScrape, type ScrapePolicy, scrape } from "../../../lib/metrics/expose.ts";
import { countInboundWebhook, observeRequest } from "../../../lib/metrics/http.ts";
import { type IndexerSource, setIndexerSource } from "../../../lib/metrics/indexer.ts";
import type { AppEnv } from "../../env.ts";
import { HttpError } from "../../errors.ts";
import type { ApiSettings } from "../../settings.ts";

export type MetricsOptions = ScrapePolicy & {
  /** The views and chain heads the indexer gauges read at scrape time. */
  indexer?: IndexerSource;
};

/**
 * Serves `GET /metrics` (Prometheus text format; docs/operations.md) and counts every other
 * request by method, route template and status, with its latency. The route is the template
 * that answered (`/v2/agents/:agent`), or `unmatched`: label values stay bounded
 * whatever paths clients send. Registered first, so it times the whole chain, refusals included.
 *
 * In production the endpoint answers only the operator (Bearer ADMIN_TOKEN), and is off (404)
 * without one.
 *
 * @example
 * app.use(metrics({ env: "production", adminToken, indexer: { sql, viewsSchema, head } }));
 */
export function metrics(o: MetricsOptions): MiddlewareHandler<AppEnv> {
  if (o.indexer) setIndexerSource(o.indexer);
  return async function metricsMiddleware(c, next) {
    if (c.req.path === "/metrics" && (c.req.method === "GET" || c.req.method === "HEAD")) {
      const verdict = judgeScrape(o, c.req.header("authorization"));
      if (verdict === "off") {
        throw new HttpError("not_found", { message: `no route for ${c.req.method} /metrics` });
      }
      if (verdict === "unauthorized") {
        throw new HttpError("not_authenticated", {
          message: "send the operator token: Authorization: Bearer <ADMIN_TOKEN>",
          headers: { "WWW-Authenticate": "Bearer" },
        });
      }
      const m = await scrape();
      return c.body(m.body, 200, { "Content-Type": m.contentType, "Cache-Control": "no-store" });
    }
    const started = performance.now();
    await next();
    observeRequest(
      c.req.method,
      routeTemplate(c),
      c.res.status,
      (performance.now() - started) / 1000,
    );
  };
}

/** The template of the route that answers this method and path; middleware (ALL) does not count. */
function routeTemplate(c: Parameters<typeof matchedRoutes>[0]): string {
  const method = c.req.method === "HEAD" ? "GET" : c.req.method;
  const routes = matchedRoutes(c).filter((r) => r.method === method);
  return routes.at(-1)?.path ?? "unmatched";
}

/**
 * The indexer gauges' source: the views schema and each chain's head from its RPC.
 *
 * @example
 * metrics({ env, indexer: indexerSource(sql, settings) });
 */
export function indexerSource(
  sql: Sql,
  settings: Pick<ApiSettings, "viewsSchema" | "rpcUrls" | "arbitrumRpcUrl">,
  headBlock: () => Promise<bigint | undefined> = rpcHeadBlock(settings.rpcUrls),
): IndexerSource {
  const arbitrum = settings.arbitrumRpcUrl ? rpcHeadBlock([settings.arbitrumRpcUrl]) : undefined;
  return {
    sql,
    viewsSchema: settings.viewsSchema,
    head: async (chainId) => (chainId === ARBITRUM_CHAIN_ID ? arbitrum?.() : headBlock()),
  };
}

/**
 * Counts an inbound webhook's answer by source: accepted, or why it was refused.
 *
 * @example
 * app.use("/v2/webhooks/code-host", countWebhook("code-host"));
 */
export function countWebhook(source: string): MiddlewareHandler<AppEnv> {
  return async function countWebhookMiddleware(c, next) {
    await next();
    countInboundWebhook(source, c.res.status);
  };
}
