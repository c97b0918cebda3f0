import type { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { z } from "zod";
import { createAgent, revokeKeys, rotateKey } from "../../lib/agents/keys.ts";
import type { Sql } from "../../lib/db/client.ts";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";
import { parseJsonBody } from "../http/json-body.ts";
import { isOperatorToken } from "../middleware/agent-auth/index.ts";
import { documentAdminRoutes } from "./admin-docs.ts";

/** Operator-only requests: `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time. */
function adminAuth(token: string | undefined): MiddlewareHandler {
  return async function adminAuthMiddleware(c, next) {
    if (!token)
      throw new HttpError("not_found", {
        message: "the operator API is off (ADMIN_TOKEN is not set)",
      });
    if (!isOperatorToken(token, c.req.header("authorization"))) {
      throw new HttpError("not_authenticated", { message: "operator token missing or wrong" });
    }
    await next();
  };
}

const CreateBody = z.object({
  name: z.string().min(1).max(32),
  expiresAt: z.iso.datetime().optional(),
});
const KeyBody = z.object({ expiresAt: z.iso.datetime().optional() }).optional();

const json = <T extends z.ZodType>(schema: T, text: string) =>
  parseJsonBody(text, schema, { emptyIsAbsent: true });

const issued = (k: { agentId: string; keyId: string; apiKey: string; expiresAt: Date | null }) => ({
  ok: true as const,
  data: {
    agentId: k.agentId,
    keyId: k.keyId,
    apiKey: k.apiKey,
    scope: "launch:*",
    expiresAt: k.expiresAt?.toISOString() ?? null,
  },
});

/**
 * Operator endpoints (described in the OpenAPI by admin-docs.ts): register an agent, rotate and revoke its
 * key. The new key is in the response once and never again; it is never logged.
 *
 * @example
 * registerAdmin(app, { sql, adminToken: config.ADMIN_TOKEN });
 */
export function registerAdmin(app: OpenAPIHono<AppEnv>, d: { sql: Sql; adminToken?: string }) {
  const auth = adminAuth(d.adminToken);
  documentAdminRoutes(app);
  app.post("/v2/admin/agents", auth, async (c) => {
    const b = await json(CreateBody, await c.req.text());
    const k = await createAgent(d.sql, {
      name: b.name,
      expiresAt: b.expiresAt ? new Date(b.expiresAt) : undefined,
    });
    return c.json(issued(k), 201);
  });
  app.post("/v2/admin/agents/:agentId/keys/rotate", auth, async (c) => {
    const b = await json(KeyBody, await c.req.text());
    // An unknown agent is 404 not_found (UnknownAgentError, mapped in api/errors.ts).
    const k = await rotateKey(d.sql, {
      agentId: c.req.param("agentId"),
      expiresAt: b?.expiresAt ? new Date(b.expiresAt) : undefined,
    });
    return c.json(issued(k), 200);
  });
  app.post("/v2/admin/agents/:agentId/keys/revoke", auth, async (c) => {
    const revoked = await revokeKeys(d.sql, { agentId: c.req.param("agentId") });
    return c.json({ ok: true as const, data: { agentId: c.req.param("agentId"), revoked } }, 200);
  });
}
