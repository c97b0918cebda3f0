import { OpenAPIHono } from "@hono/zod-openapi";
import { requestId } from "hono/request-id";
import type { Sql } from "../lib/db/client.ts";
import type { Logger } from "../lib/logger.ts";
import { watchMarker } from "../lib/pollers/watched.ts";
import type { WebhookSecrets } from "../lib/webhooks/inbound/webhook-secrets.ts";
import { type LaunchFeatures, registerLaunchFeatures } from "./agent-launch/register.ts";
import { type DashboardFeatures, registerDashboard } from "./dashboard/register.ts";
import { type DepositLaunchDeps, registerDepositLaunch } from "./deposit-launch/register.ts";
import { registerDividends } from "./dividends/register.ts";
import type { AppEnv } from "./env.ts";
import { HttpError, renderError } from "./errors.ts";
import { registerEventFeed } from "./events/register.ts";
import { declareCommonResponses } from "./http/common-responses.ts";
import { createReadDeps } from "./http/read-deps.ts";
import { registerAgentKeySecurity } from "./http/schemas.ts";
import { validationHook } from "./http/validation.ts";
import { API_LIMITS } from "./limits.ts";
import { registerMarket } from "./market/register.ts";
import { accessLog } from "./middleware/access-log/index.ts";
import { bodyLimit } from "./middleware/body-limit/index.ts";
import { clientIp } from "./middleware/client-ip/index.ts";
import { cors } from "./middleware/cors/index.ts";
import { identify } from "./middleware/identify/index.ts";
import { indexerSource, metrics } from "./middleware/metrics/index.ts";
import { rateLimit } from "./middleware/rate-limit/index.ts";
import { securityHeaders } from "./middleware/security-headers/index.ts";
import {
  type HeadBlockReader,
  type HealthRouteOptions,
  registerOps,
  registerProbes,
  rpcHeadBlock,
} from "./ops/register.ts";
import { registerPerps } from "./perps/routes.ts";
import { type PolicyFeatures, registerPolicyAndOrders } from "./policy/register.ts";
import { registerSessionFeatures, type SessionFeatures } from "./sessions/register.ts";
import type { ApiSettings } from "./settings.ts";
import {
  registerInbound,
  registerOutboundWebhooks,
  type WebhookSubscriptionDeps,
} from "./webhooks/register.ts";

export type CreateAppParameters = {
  logger: Logger;
  env: string;
  sql: Sql;
  settings: ApiSettings;
  service?: string;
  startedAt?: number;
  /** Reads the chain head for the indexer status; by default `eth_blockNumber` on the RPC. */
  headBlock?: HeadBlockReader;
  /**
   * The operator token (ADMIN_TOKEN), the one credential of every operator action: the admin
   * and featured endpoints, internal events, another agent's records, /metrics outside
   * development. Unset: those answer as without a valid token.
   */
  adminToken?: string;
  /** Agent launch, the agent admin endpoints and MCP; absent in read-only tests. */
  launch?: LaunchFeatures;
  /** Chain reads and the signer's policy for the agent dashboard. */
  dashboard?: DashboardFeatures;
  /** Outbound webhook subscriptions; absent in read-only tests. */
  webhooks?: Omit<WebhookSubscriptionDeps, "sql" | "adminToken">;
  /** Session endpoints' extras (chain client, X OAuth) and the deposit-launch writes that
   * need a session (relayer, factory, chain). */
  sessions?: SessionFeatures & { deposit?: DepositLaunchDeps };
  /** Inbound webhook secrets of the event feed (unset: no inbound webhook routes). */
  events?: { webhookSecrets?: WebhookSecrets };
  /** Trading policies and agent orders through the signer. */
  policy?: PolicyFeatures;
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
    defaultHook: validationHook("validation_failed"),
  });

  app.use(requestId({ limitLength: 64 }));
  app.use(
    metrics({
      env: p.env,
      adminToken: p.adminToken,
      indexer: indexerSource(p.sql, p.settings, p.headBlock),
    }),
  );
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

  // Plain liveness answers before the limiter: probes must never be throttled, and it is the
  // benchmark's ceiling (no database round trip). The deep check costs an RPC read and queries,
  // so it passes on to its route behind the limiter (registerOps).
  const headBlock = p.headBlock ?? rpcHeadBlock(p.settings.rpcUrls);
  const health: HealthRouteOptions = {
    service: p.service ?? "launchpad",
    env: p.env,
    startedAt: p.startedAt ?? Date.now(),
    adminToken: p.adminToken,
    deep: { sql: p.sql, viewsSchema: p.settings.viewsSchema, headBlock },
  };
  registerProbes(app, health);
  registerInbound(app, { sql: p.sql, secrets: p.events?.webhookSecrets });

  // Routes registered so far answer before the per-client limiter: they never give 429.
  const unlimited = new Set(app.openAPIRegistry.definitions);
  app.use(clientIp({ trustProxy: p.settings.trustProxy }));
  // Before the limiter: a valid agent key, session or the operator token earns the
  // authenticated budget on every route.
  app.use(identify({ sql: p.sql, serviceKey: p.settings.serviceKey, adminToken: p.adminToken }));
  app.use(rateLimit({ sql: p.sql, ...p.settings.rateLimit }));

  const { sql, settings } = p;
  // A successful read of an agent marks it watched: the pollers refresh it first.
  const watch = watchMarker(sql, (error) =>
    p.logger.debug({ err: error }, "marking a watched agent failed"),
  );
  app.use("/v2/agents/*", async (c, next) => {
    await next();
    const agent = c.var.agent;
    if (c.req.method === "GET" && c.res.status < 300 && agent) watch(agent.agentId);
  });
  // Chain-derived reads share one indexed-block tracker and one read cache.
  const reads = createReadDeps(sql, settings.viewsSchema);
  // Read your own writes: after a write through this process its next read re-reads the
  // versions instead of trusting a reading up to 50 ms old (docs/market.md "Caching").
  app.use(async (c, next) => {
    await next();
    if (!["GET", "HEAD", "OPTIONS"].includes(c.req.method)) reads.tracker.invalidate();
  });
  registerOps(app, {
    sql,
    settings,
    headBlock,
    adminToken: p.adminToken,
    agentAdmin: p.launch !== undefined,
    health,
  });
  registerAgentKeySecurity(app);
  registerDashboard(app, {
    sql,
    settings,
    reads,
    adminToken: p.adminToken,
    features: p.dashboard,
  });
  registerPerps(app, { sql, reads });
  registerPolicyAndOrders(app, { sql, adminToken: p.adminToken, features: p.policy });
  registerMarket(app, { sql, settings, reads });
  registerDividends(app, { sql, settings, reads });
  registerDepositLaunch(app, { sql, settings, reads, deposit: p.sessions?.deposit });
  registerSessionFeatures(app, { sql, settings, env: p.env, features: p.sessions });
  registerEventFeed(app, { sql, adminToken: p.adminToken });
  if (p.launch) registerLaunchFeatures(app, { sql, features: p.launch });
  if (p.webhooks) registerOutboundWebhooks(app, { sql, ...p.webhooks, adminToken: p.adminToken });

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
