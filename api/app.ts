import { OpenAPIHono } from "@hono/zod-openapi";
import { requestId } from "hono/request-id";
import type { Sql } from "../lib/db/client.ts";
import type { WebhookSecrets } from "../lib/events/webhook-secrets.ts";
import type { Logger } from "../lib/logger.ts";
import { type LaunchFeatures, registerLaunchFeatures } from "./agent-launch/register.ts";
import { registerAgents } from "./dashboard/agents.ts";
import { type DashboardFeatures, registerDashboard } from "./dashboard/register.ts";
import { registerLaunches } from "./deposit-launch/read-routes.ts";
import type { AppEnv } from "./env.ts";
import { HttpError, invalidInput, renderError } from "./errors.ts";
import { registerEvents } from "./events/feed.ts";
import { registerWebhooks } from "./events/inbound/routes.ts";
import { declareCommonResponses } from "./http/common-responses.ts";
import { createReadDeps } from "./http/read-deps.ts";
import { API_LIMITS } from "./limits.ts";
import { registerChart } from "./market/chart.ts";
import { registerHolders } from "./market/holders.ts";
import { registerTokens } from "./market/tokens.ts";
import { registerMarket } from "./market/trades.ts";
import { registerUdf } from "./market/udf.ts";
import { accessLog } from "./middleware/access-log/index.ts";
import { bodyLimit } from "./middleware/body-limit/index.ts";
import { clientIp } from "./middleware/client-ip/index.ts";
import { cors } from "./middleware/cors/index.ts";
import { identify } from "./middleware/identify/index.ts";
import { rateLimit } from "./middleware/rate-limit/index.ts";
import { securityHeaders } from "./middleware/security-headers/index.ts";
import { registerDiscovery } from "./ops/discovery.ts";
import { registerHealth } from "./ops/health.ts";
import { type HeadBlockReader, registerIndexer, rpcHeadBlock } from "./ops/indexer.ts";
import { registerPollers } from "./ops/pollers.ts";
import { type OrderRouteDeps, registerOrders } from "./policy/orders.ts";
import { type PolicySigner, registerPolicy } from "./policy/policy.ts";
import { registerSessionFeatures, type SessionFeatures } from "./sessions/register.ts";
import type { ApiSettings } from "./settings.ts";
import {
  registerWebhookSubscriptions,
  type WebhookSubscriptionDeps,
} from "./webhooks/subscriptions.ts";

export type CreateAppParameters = {
  logger: Logger;
  env: string;
  sql: Sql;
  settings: ApiSettings;
  service?: string;
  startedAt?: number;
  /** Reads the chain head for the indexer status; by default `eth_blockNumber` on the RPC. */
  headBlock?: HeadBlockReader;
  /** Agent launch, operator, webhook and MCP endpoints (issue 6); absent in read-only tests. */
  launch?: LaunchFeatures;
  /** Chain reads and the signer's policy for the agent dashboard (issue 13). */
  dashboard?: DashboardFeatures;
  /** Outbound webhook subscriptions (issue 15); absent in read-only tests. */
  webhooks?: Omit<WebhookSubscriptionDeps, "sql">;
  /** Session endpoints' extras (issue 14): chain client, deposit-launch writes, X OAuth. */
  sessions?: SessionFeatures;
  /** The agent event feed (issue 11): inbound webhook secrets (unset: no webhook routes) and
   * the operator token that unlocks internal events. */
  events?: { webhookSecrets?: WebhookSecrets; adminToken?: string };
  /** Trading policies and agent orders through the signer (issue 20). */
  policy?: {
    steward?: PolicySigner & NonNullable<OrderRouteDeps["steward"]>;
    spot?: OrderRouteDeps["spot"];
    perps?: OrderRouteDeps["perps"];
  };
};

/**
 * Builds the HTTP application: middleware, routes and the generated OpenAPI document.
 * Tests call `app.request()` on it directly, with no server.
 *
 * @example
 * const app = createApp({ logger, env: "test", sql, settings: defaultApiSettings() });
 * const res = await app.request("/health");
 */
export function createApp(p: CreateAppParameters) {
  const app = new OpenAPIHono<AppEnv>({
    // Zod failures on params, query or body become the documented validation envelope.
    defaultHook: (result) => {
      if (!result.success) {
        throw invalidInput("validation_failed", result.error.issues);
      }
    },
  });

  app.use(requestId({ limitLength: 64 }));
  app.use(accessLog(p.logger));
  app.use(securityHeaders({ hsts: p.settings.apiUrl.startsWith("https:") }));
  app.use(
    cors({
      origin: new URL(p.settings.webUrl).origin,
      allowMethods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
      allowHeaders: ["Content-Type", "Authorization", "X-Agent-Api-Key", "Idempotency-Key"],
      exposeHeaders: [
        "RateLimit-Limit",
        "RateLimit-Remaining",
        "RateLimit-Reset",
        "Retry-After",
        "X-Request-Id",
        "X-Indexed-Block",
        "ETag",
      ],
      credentials: true,
      maxAge: 600,
    }),
  );
  // Refused when read, not on arrival: a protected route checks the key (a header) first.
  app.use(bodyLimit({ maxBytes: API_LIMITS.maxBodyBytes }));

  // Liveness answers before the limiter: probes must never be throttled, and it is the
  // benchmark's ceiling (no database round trip).
  const headBlock = p.headBlock ?? rpcHeadBlock(p.settings.rpcUrls);
  registerHealth(app, {
    service: p.service ?? "launchpad",
    env: p.env,
    startedAt: p.startedAt ?? Date.now(),
    deep: { sql: p.sql, viewsSchema: p.settings.viewsSchema, headBlock },
  });

  // Signed webhooks are authenticated per request and come in bursts from a few senders:
  // they are registered before the per-IP limiter.
  if (p.events?.webhookSecrets) {
    registerWebhooks(app, { sql: p.sql, secrets: p.events.webhookSecrets });
  }

  // Routes registered so far answer before the per-client limiter: they never give 429.
  const unlimited = new Set(app.openAPIRegistry.definitions);
  app.use(clientIp({ trustProxy: p.settings.trustProxy }));
  // Before the limiter: a valid agent key earns the authenticated budget on every route.
  app.use(identify({ sql: p.sql, serviceKey: p.settings.serviceKey }));
  app.use(rateLimit({ sql: p.sql, ...p.settings.rateLimit }));

  const deps = { sql: p.sql, settings: p.settings };
  // Chain-derived reads share one indexed-block tracker and one read cache (issue 17).
  const reads = { ...deps, reads: createReadDeps(p.sql, p.settings.viewsSchema) };
  // Read your own writes: after a write through this process its next read re-reads the
  // versions instead of trusting a reading up to 50 ms old (docs/market.md "Caching").
  app.use(async (c, next) => {
    await next();
    if (!["GET", "HEAD", "OPTIONS"].includes(c.req.method)) reads.reads.tracker.invalidate();
  });
  registerDiscovery(app, p.settings);
  registerIndexer(app, { ...deps, headBlock });
  registerPollers(app, deps);
  // The dashboard (issue 13) also supplies what AgentDetail adds for GET /v2/agents/{tokenAddress}.
  const dashboard = registerDashboard(app, {
    ...deps,
    adminToken: p.launch?.adminToken,
    features: p.dashboard,
  });
  registerAgents(app, { ...reads, detail: dashboard.detail });
  // Trading policy and orders (issue 20): the signer holds the policy and judges every order.
  const operatorToken = p.launch?.adminToken ?? p.events?.adminToken;
  registerPolicy(app, { sql: p.sql, adminToken: operatorToken, steward: p.policy?.steward });
  registerOrders(app, { sql: p.sql, adminToken: operatorToken, ...p.policy });
  registerTokens(app, reads);
  registerMarket(app, reads);
  registerChart(app, reads);
  registerHolders(app, reads);
  registerUdf(app, reads);
  registerLaunches(app, reads);
  registerSessionFeatures(app, {
    sql: p.sql,
    settings: p.settings,
    env: p.env,
    features: p.sessions,
  });
  registerEvents(app, { sql: p.sql, adminToken: p.events?.adminToken ?? p.launch?.adminToken });
  if (p.launch) registerLaunchFeatures(app, { sql: p.sql, features: p.launch });
  if (p.webhooks) registerWebhookSubscriptions(app, { sql: p.sql, ...p.webhooks });

  declareCommonResponses(app, { unlimited });
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Launchpad API",
      version: "2.0.0",
      description:
        "Read API of the agent launchpad on BSC. Conventions, auth, limits and the launch walkthrough: GET /AGENT.md.",
    },
    servers: [{ url: p.settings.apiUrl }],
  });

  app.notFound((c) =>
    renderError(
      c,
      new HttpError("not_found", { message: `no route for ${c.req.method} ${c.req.path}` }),
    ),
  );
  app.onError((error, c) => renderError(c, error));
  return app;
}

export type App = ReturnType<typeof createApp>;
