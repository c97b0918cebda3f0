import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { okEnvelope } from "../schemas.ts";

export const HealthData = z
  .object({
    service: z.string().openapi({ example: "launchpad" }),
    env: z.string().openapi({ example: "development" }),
    uptimeSeconds: z.number().int().nonnegative(),
  })
  .openapi("Health");

const route = createRoute({
  method: "get",
  path: "/health",
  tags: ["discovery"],
  summary: "Liveness of the API process",
  responses: {
    200: {
      description: "The API answers",
      content: { "application/json": { schema: okEnvelope(HealthData) } },
    },
  },
});

export type HealthRouteOptions = { service: string; env: string; startedAt: number };

/** `GET /health`: answers as long as the process serves requests (it checks no dependency). */
export function registerHealth(app: OpenAPIHono<AppEnv>, o: HealthRouteOptions) {
  return app.openapi(route, (c) =>
    c.json(
      {
        ok: true as const,
        data: {
          service: o.service,
          env: o.env,
          uptimeSeconds: Math.floor((Date.now() - o.startedAt) / 1000),
        },
      },
      200,
    ),
  );
}
