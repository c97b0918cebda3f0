import type { OpenAPIHono } from "@hono/zod-openapi";
import { featureAgent } from "../../lib/agents/records.ts";
import type { Sql } from "../../lib/db/client.ts";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";
import { operatorOnly } from "../middleware/operator/index.ts";
import { documentFeatureRoute } from "./admin-docs.ts";

/** Operators: make an agent (by agentId or token address) the featured one. */
export function registerFeatured(app: OpenAPIHono<AppEnv>, d: { sql: Sql; adminToken?: string }) {
  documentFeatureRoute(app);
  app.post("/v2/admin/agents/:agent/feature", operatorOnly(d.adminToken), async (c) => {
    const ref = c.req.param("agent");
    const [row] = await d.sql<{ agent_id: string }[]>`select agent_id from app.agents
      where agent_id = ${ref} or token_address = ${ref.toLowerCase()}`;
    if (!row) throw new HttpError("not_found", { message: `no agent ${ref}` });
    const changed = await featureAgent(d.sql, row.agent_id, { kind: "operator", id: "admin-api" });
    return c.json({ ok: true as const, data: { agentId: row.agent_id, featured: true, changed } });
  });
}
