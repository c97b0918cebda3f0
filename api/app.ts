import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { requestId } from "hono/request-id";
import type { Logger } from "../lib/logger.ts";
import type { AppEnv } from "./env.ts";
import { HttpError, renderError } from "./errors.ts";
import { API_LIMITS } from "./limits.ts";
import { accessLog } from "./middleware/access-log/index.ts";
import { registerHealth } from "./routes/health.ts";

export type CreateAppParameters = {
  logger: Logger;
  env: string;
  service?: string;
  startedAt?: number;
};

/**
 * Builds the HTTP application: middleware, routes and the generated OpenAPI document.
 * Tests call `app.request()` on it directly, with no server.
 *
 * @example
 * const app = createApp({ logger, env: "test" });
 * const res = await app.request("/health");
 */
export function createApp(p: CreateAppParameters) {
  const app = new OpenAPIHono<AppEnv>({
    // Zod failures on params, query or body become the documented validation envelope.
    defaultHook: (result) => {
      if (!result.success) {
        throw new HttpError("validation_failed", {
          message: "request did not match the schema",
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
    bodyLimit({
      maxSize: API_LIMITS.maxBodyBytes,
      onError: () => {
        throw new HttpError("payload_too_large", {
          message: `request body exceeds ${API_LIMITS.maxBodyBytes} bytes`,
        });
      },
    }),
  );

  registerHealth(app, {
    service: p.service ?? "launchpad",
    env: p.env,
    startedAt: p.startedAt ?? Date.now(),
  });

  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: { title: "Launchpad API", version: "2.0.0" },
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
