import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Sql } from "../../lib/db/client.ts";
import { deepHealth } from "../../lib/health/deep.ts";
import type { AppEnv } from "../env.ts";
import { jsonResponse, okEnvelope } from "../http/schemas.ts";
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from "../limits.ts";

export const HealthData = z
  .object({
    service: z.string().openapi({ example: "launchpad" }),
    env: z.string().openapi({ example: "development" }),
    uptimeSeconds: z.number().int().nonnegative(),
  })
  .openapi("Health");

const DependencyCheck = z
  .object({
    state: z.enum(["up", "down", "stale"]),
    detail: z.string().optional(),
    headBlock: z.number().int().optional(),
    indexedBlock: z.number().int().optional(),
    lagBlocks: z.number().int().nullable().optional(),
    lagSeconds: z.number().nullable().optional(),
    lastBeatAt: z.string().nullable().optional(),
  })
  .openapi("DependencyCheck");

const SilentInstance = z
  .object({
    instance: z.string().openapi({ example: "worker-3f9a21c0" }),
    host: z.string(),
    pid: z.number().int(),
    version: z.string(),
    startedAt: z.string(),
    lastBeatAt: z.string(),
    silentSeconds: z.number().int(),
  })
  .openapi("SilentInstance");

const RoleInstances = z
  .object({
    live: z.number().int().nonnegative().openapi({ description: "Instances that beat recently" }),
    silent: z.array(SilentInstance).openapi({
      description: "Instances silent past 30 s (crashed or cut off), until pruned after 24 h",
    }),
  })
  .openapi("RoleInstances");

const DeepHealthBody = z
  .object({
    ok: z.boolean().openapi({ description: "Every dependency is up" }),
    data: HealthData.extend({
      checks: z.object({
        database: DependencyCheck,
        rpc: DependencyCheck,
        indexer: DependencyCheck.openapi({
          description: "`stale` when the index is behind the head longer than the threshold",
        }),
        worker: DependencyCheck.openapi({ description: "Up while a worker instance beats" }),
      }),
      instances: z.record(z.string(), RoleInstances).openapi({
        description:
          "Per role (api, worker, indexer): live instances counted, silent ones named. A silent instance does not fail the check while another of its role is live",
      }),
    }),
  })
  .openapi("DeepHealth");

const route = createRoute({
  method: "get",
  path: "/health",
  tags: ["discovery"],
  summary: "Liveness of the API process; with deep=true, the state of each dependency",
  request: {
    query: z.object({
      deep: z.enum(["true", "false"]).optional().openapi({
        description:
          "Also check the database, the RPC, the index's lag and the worker's heartbeat; 503 when one is not up",
      }),
    }),
  },
  responses: {
    200: jsonResponse(
      "The API answers (deep: and every dependency is up)",
      z.union([okEnvelope(HealthData), DeepHealthBody]),
    ),
    503: jsonResponse("deep=true only: a dependency is down or the index is stale", DeepHealthBody),
  },
});

export type HealthRouteOptions = {
  service: string;
  env: string;
  startedAt: number;
  /** For the deep check; without it deep=true checks nothing more. */
  deep?: { sql: Sql; viewsSchema: string; headBlock: () => Promise<bigint | undefined> };
};

/**
 * `GET /health`: answers as long as the process serves requests (it checks no dependency).
 * `GET /health?deep=true`: also names each dependency and its state, 503 unless all are up.
 */
export function registerHealth(app: OpenAPIHono<AppEnv>, o: HealthRouteOptions) {
  return app.openapi(route, async (c) => {
    const data = {
      service: o.service,
      env: o.env,
      uptimeSeconds: Math.floor((Date.now() - o.startedAt) / 1000),
    };
    if (c.req.valid("query").deep !== "true" || !o.deep)
      return c.json({ ok: true as const, data }, 200);
    const h = await deepHealth(o.deep);
    if (!h.healthy) c.header("Retry-After", String(UNAVAILABLE_RETRY_AFTER_SECONDS));
    return c.json(
      { ok: h.healthy, data: { ...data, checks: h.checks, instances: h.instances } },
      h.healthy ? 200 : 503,
    );
  });
}
