import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Sql } from "../../lib/db/client.ts";
import type { AppEnv } from "../env.ts";
import type { ApiSettings } from "../settings.ts";
import { registerAdmin } from "./admin.ts";
import { registerDiscovery } from "./discovery.ts";
import { registerFeatured } from "./featured.ts";
import { type HealthRouteOptions, registerHealth, registerLiveness } from "./health.ts";
import { type HeadBlockReader, registerIndexer, rpcHeadBlock } from "./indexer.ts";
import { registerOperatorLaunches } from "./launches.ts";
import { registerPollers } from "./pollers.ts";

export type { HealthRouteOptions };
export { type HeadBlockReader, rpcHeadBlock };

/**
 * Plain liveness (`GET /health`): registered before the per-client limiter, so probes are never
 * throttled. The deep check and the rest of ops come through registerOps, after it.
 */
export function registerProbes(app: OpenAPIHono<AppEnv>, o: HealthRouteOptions) {
  registerLiveness(app, o);
}

/**
 * What an operator reads and does: the deep health check, AGENT.md and /docs, indexer and
 * poller status, and the operator endpoints (a failed launch's cause; agents and their keys
 * only where the launch features are on).
 */
export function registerOps(
  app: OpenAPIHono<AppEnv>,
  d: {
    sql: Sql;
    settings: ApiSettings;
    headBlock: HeadBlockReader;
    adminToken?: string;
    agentAdmin: boolean;
    /** `/health` as documented: deep=true, behind the limiter (registerProbes answers the rest). */
    health: HealthRouteOptions;
  },
) {
  registerHealth(app, d.health);
  registerDiscovery(app, d.settings);
  registerIndexer(app, { sql: d.sql, settings: d.settings, headBlock: d.headBlock });
  registerPollers(app, { sql: d.sql });
  registerFeatured(app, { sql: d.sql, adminToken: d.adminToken });
  registerOperatorLaunches(app, { sql: d.sql, adminToken: d.adminToken });
  if (d.agentAdmin) registerAdmin(app, { sql: d.sql, adminToken: d.adminToken });
}
