import type { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { createAgent, revokeKeys, rotateKey } from "../../lib/agents/keys.ts";
import type { Sql } from "../../lib/db/client.ts";
import type { AppEnv } from "../env.ts";
import { operatorOnly } from "../middleware/operator/index.ts";
import { adminRoutes, registerOperatorScheme } from "./admin-docs.ts";

/**
 * An empty body is no body, for a route whose body is optional: `curl -X POST -H 'Content-Type:
 * application/json'` with nothing after it is a rotate without an expiry, not "not JSON". The
 * request goes on without the body and its Content-Type, which the validator takes as absent.
 */
const emptyIsAbsent: MiddlewareHandler = async (c, next) => {
  if (c.req.raw.body && (await c.req.arrayBuffer()).byteLength === 0) {
    const headers = new Headers(c.req.raw.headers);
    headers.delete("content-type");
    c.req.raw = new Request(c.req.url, { method: c.req.method, headers });
  }
  await next();
};

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
 * Operator endpoints (defined in admin-docs.ts): register an agent, rotate and revoke its key.
 * The new key is in the response once and never again; it is never logged.
 *
 * @example
 * registerAdmin(app, { sql, adminToken: config.ADMIN_TOKEN });
 */
export function registerAdmin(app: OpenAPIHono<AppEnv>, d: { sql: Sql; adminToken?: string }) {
  registerOperatorScheme(app);
  const r = adminRoutes(operatorOnly(d.adminToken), emptyIsAbsent);
  app.openapi(r.create, async (c) => {
    const b = c.req.valid("json");
    const k = await createAgent(d.sql, {
      name: b.name,
      expiresAt: b.expiresAt ? new Date(b.expiresAt) : undefined,
    });
    return c.json(issued(k), 201);
  });
  app.openapi(r.rotate, async (c) => {
    const { expiresAt } = c.req.valid("json");
    // An unknown agent is 404 not_found (UnknownAgentError, mapped in api/errors.ts).
    const k = await rotateKey(d.sql, {
      agentId: c.req.valid("param").agentId,
      expiresAt: expiresAt ? new Date(expiresAt) : undefined,
    });
    return c.json(issued(k), 200);
  });
  app.openapi(r.revoke, async (c) => {
    const { agentId } = c.req.valid("param");
    const revoked = await revokeKeys(d.sql, { agentId });
    return c.json({ ok: true as const, data: { agentId, revoked } }, 200);
  });
}
