import type { OpenAPIHono } from "@hono/zod-openapi";
import { featureAgentByRef } from "../../lib/agents/records.ts";
import type { Sql } from "../../lib/db/client.ts";
import type { AppEnv } from "../env.ts";
import { operatorOnly } from "../middleware/operator/index.ts";
import { documentFeatureRoute } from "./admin-docs.ts";

/** Operators: make an agent (by agentId or token address) the featured one. */
export function registerFeatured(app: OpenAPIHono<AppEnv>, d: { sql: Sql; adminToken?: string }) {
  documentFeatureRoute(app);
  app.post("/v2/admin/agents/:agent/feature", operatorOnly(d.adminToken), async (c) => {
    const ref = c.req.param("agent");
    const { agentId, changed } = await featureAgentByRef(d.sql, ref, {
      kind: "operator",
      id: "admin-api",
    });
    return c.json({ ok: true as const, data: { agentId, featured: true, changed } });
  });
}
