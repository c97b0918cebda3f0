import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { type DeepHealthParameters, sharedDeepHealth } from "../../lib/health/deep.ts";
import type { AppEnv } from "../env.ts";
import { jsonResponse, okEnvelope } from "../http/schemas.ts";
import { HEALTH_LIMITS, UNAVAILABLE_RETRY_AFTER_SECONDS } from "../limits.ts";
import { isOperatorToken } from "../middleware/agent-auth/index.ts";

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

const HealthStatus = z
  .object({
    ok: z.boolean().openapi({ description: "Every dependency is up" }),
    data: HealthData,
  })
  .openapi("HealthStatus", {
    description: "deep=true without the operator token: whether every dependency is up, no more",
  });

const route = createRoute({
  method: "get",
  path: "/health",
  tags: ["discovery"],
  summary: "Liveness of the API process; with deep=true, whether every dependency is up",
  description: `Plain \`/health\` checks nothing and is never rate limited. \`deep=true\` checks the database, the RPC, the index's lag and the workers' heartbeat, and answers 503 when one is not up. One check serves every caller for ${HEALTH_LIMITS.deepCacheMs / 1000} s, and deep calls count against the caller's rate limit. Each check's state and the instances of every role are shown only with the operator token (\`Authorization: Bearer <ADMIN_TOKEN>\`); without it (or with a wrong one) the answer says only whether all is up, with the same status code.`,
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
      "The API answers (deep: and every dependency is up; the checks with the operator token)",
      z.union([okEnvelope(HealthData), DeepHealthBody]),
    ),
    503: jsonResponse(
      "deep=true only: a dependency is down or the index is stale (which, with the operator token)",
      z.union([DeepHealthBody, HealthStatus]),
    ),
  },
});

export type HealthRouteOptions = {
  service: string;
  env: string;
  startedAt: number;
  /** For the deep check; without it deep=true checks nothing more. */
  deep?: DeepHealthParameters;
  /** The operator token: only a request carrying it sees each check and the instances. */
  adminToken?: string;
};

function healthData(o: HealthRouteOptions) {
  return {
    service: o.service,
    env: o.env,
    uptimeSeconds: Math.floor((Date.now() - o.startedAt) / 1000),
  };
}

/**
 * Plain `GET /health`, answered where it is registered: before the per-client limiter, with no
 * database round trip, so probes are never throttled and it stays the benchmarks' ceiling. A
 * request with `deep` (anything but one `deep=false`) passes on to the route `registerHealth`
 * adds behind the limiter, which also validates the query.
 *
 * @example
 * registerLiveness(app, { service: "launchpad", env: "production", startedAt: Date.now() });
 */
export function registerLiveness(app: OpenAPIHono<AppEnv>, o: HealthRouteOptions) {
  app.get("/health", async function liveness(c, next) {
    const deep = c.req.queries("deep");
    if (deep === undefined || (deep.length === 1 && deep[0] === "false"))
      return c.json({ ok: true as const, data: healthData(o) }, 200);
    await next();
  });
}

/**
 * `GET /health` as documented, behind the per-client limiter: `deep=true` names each dependency
 * and its state to the operator, and tells anyone else only whether all are up (503 unless
 * they are). One check, shared for `HEALTH_LIMITS.deepCacheMs`, answers every caller.
 *
 * @example
 * registerHealth(app, { service, env, startedAt, adminToken, deep: { sql, viewsSchema, headBlock } });
 */
export function registerHealth(app: OpenAPIHono<AppEnv>, o: HealthRouteOptions) {
  const check = o.deep && sharedDeepHealth(o.deep, HEALTH_LIMITS.deepCacheMs);
  return app.openapi(route, async (c) => {
    const data = healthData(o);
    if (c.req.valid("query").deep !== "true" || !check)
      return c.json({ ok: true as const, data }, 200);
    const h = await check();
    // Host names, pids, versions and the database's error text are for the operator alone.
    const operator = isOperatorToken(o.adminToken, c.req.header("authorization"));
    const detail = { ...data, checks: h.checks, instances: h.instances };
    if (h.healthy)
      return operator
        ? c.json({ ok: true, data: detail }, 200)
        : c.json({ ok: true as const, data }, 200);
    c.header("Retry-After", String(UNAVAILABLE_RETRY_AFTER_SECONDS));
    return operator ? c.json({ ok: false, data: detail }, 503) : c.json({ ok: false, data }, 503);
  });
}
