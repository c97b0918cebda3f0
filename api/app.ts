import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import { requestId } from "hono/request-id";
import type { Sql } from "../lib/db/client.ts";
import type { Logger } from "../lib/logger.ts";
import type { AppEnv } from "./env.ts";
import { HttpError, renderError } from "./errors.ts";
import { type LaunchFeatures, registerLaunchFeatures } from "./launch/register.ts";
import { API_LIMITS } from "./limits.ts";
import { accessLog } from "./middleware/access-log/index.ts";
import { clientIp } from "./middleware/client-ip/index.ts";
import { identify } from "./middleware/identify/index.ts";
import { rateLimit } from "./middleware/rate-limit/index.ts";
import { registerAgents } from "./routes/agents.ts";
import { registerDiscovery } from "./routes/discovery.ts";
import { registerHealth } from "./routes/health.ts";
import { type HeadBlockReader, registerIndexer } from "./routes/indexer.ts";
import { registerLaunches } from "./routes/launches.ts";
import { registerMarket } from "./routes/market.ts";
import { registerTokens } from "./routes/tokens.ts";
import type { ApiSettings } from "./settings.ts";

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
        throw new HttpError("validation_failed", {
          message: result.error.issues
            .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
            .join("; "),
          details: result.error.issues.map((i) => ({
            path: i.path.join(".") || "(root)",
            message: i.message,
          })),
        });
      }
    },
  });

  app.use(requestId({ limitLength: 64 }));
  app.use(accessLog(p.logger));
  app.use(
    cors({
      origin: new URL(p.settings.webUrl).origin,
      allowMethods: ["GET", "POST", "OPTIONS"],
      allowHeaders: ["Content-Type", "Authorization", "X-Agent-Api-Key", "Idempotency-Key"],
      exposeHeaders: [
        "RateLimit-Limit",
        "RateLimit-Remaining",
        "RateLimit-Reset",
        "Retry-After",
        "X-Request-Id",
      ],
      maxAge: 600,
    }),
  );
  app.use(
    bodyLimit({
      maxSize: API_LIMITS.maxBodyBytes,
      onError: () => {
        throw new HttpError("payload_too_large", {
          message: `request body exceeds ${API_LIMITS.maxBodyBytes} bytes`,
        });
      },
    }),
  );

  // Liveness answers before the limiter: probes must never be throttled, and it is the
  // benchmark's ceiling (no database round trip).
  registerHealth(app, {
    service: p.service ?? "launchpad",
    env: p.env,
    startedAt: p.startedAt ?? Date.now(),
  });

  app.use(clientIp({ trustProxy: p.settings.trustProxy }));
  // Before the limiter: a valid agent key earns the authenticated budget on every route.
  app.use(identify({ sql: p.sql }));
  app.use(rateLimit({ sql: p.sql, ...p.settings.rateLimit }));

  const deps = { sql: p.sql, settings: p.settings };
  registerDiscovery(app, p.settings);
  registerIndexer(app, { ...deps, headBlock: p.headBlock });
  registerAgents(app, deps);
  registerTokens(app, deps);
  registerMarket(app, deps);
  registerLaunches(app, deps);
  if (p.launch) registerLaunchFeatures(app, { sql: p.sql, features: p.launch });

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
