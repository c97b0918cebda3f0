import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";
import { errorResponse, jsonBody, jsonResponse, okEnvelope } from "../http/schemas.ts";

const OPERATOR = [{ operatorToken: [] }];
const AgentIdParam = z.object({ agentId: z.string().min(1).max(64) });

const IssuedKey = okEnvelope(
  z.object({
    agentId: z.string(),
    keyId: z.string(),
    apiKey: z.string().describe("agk_…: shown once, never again"),
    scope: z.string(),
    expiresAt: z.string().nullable(),
  }),
).openapi("IssuedKey");

const CreateBody = z.object({
  name: z.string().min(1).max(32),
  expiresAt: z.iso.datetime().optional(),
});
const KeyBody = z.object({ expiresAt: z.iso.datetime().optional() });

const errors = {
  400: errorResponse("validation_failed: the body is not valid"),
  401: errorResponse("not_authenticated: operator token missing or wrong"),
  404: errorResponse("not_found: no such agent, or the operator API is off (ADMIN_TOKEN unset)"),
};

/** The operator token's security scheme (`Authorization: Bearer <ADMIN_TOKEN>`). */
export function registerOperatorScheme(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "operatorToken", {
    type: "http",
    scheme: "bearer",
    description: "The operator token (ADMIN_TOKEN); operator endpoints only",
  });
}

/**
 * The operator key routes (`Authorization: Bearer <ADMIN_TOKEN>`, checked by `auth` before
 * any parameter or body); their handlers are in `admin.ts`. `emptyIsAbsent` runs before the
 * rotate's optional body is read.
 *
 * @example
 * const r = adminRoutes(auth, emptyIsAbsent); app.openapi(r.create, handler);
 */
export const adminRoutes = (auth: MiddlewareHandler, emptyIsAbsent: MiddlewareHandler) => ({
  create: createRoute({
    method: "post",
    path: "/v2/admin/agents",
    tags: ["operator"],
    summary: "Register an agent and issue its first key (shown once)",
    security: OPERATOR,
    middleware: [auth],
    request: {
      body: jsonBody(CreateBody),
    },
    responses: { 201: jsonResponse("Registered", IssuedKey), ...errors },
  }),
  rotate: createRoute({
    method: "post",
    path: "/v2/admin/agents/{agentId}/keys/rotate",
    tags: ["operator"],
    summary: "Issue a new key and revoke the agent's others at once",
    security: OPERATOR,
    middleware: [auth, emptyIsAbsent],
    request: {
      params: AgentIdParam,
      body: { required: false, content: { "application/json": { schema: KeyBody } } },
    },
    responses: { 200: jsonResponse("Rotated", IssuedKey), ...errors },
  }),
  revoke: createRoute({
    method: "post",
    path: "/v2/admin/agents/{agentId}/keys/revoke",
    tags: ["operator"],
    summary: "Revoke every key of the agent (takes effect on the next request)",
    security: OPERATOR,
    middleware: [auth],
    request: { params: AgentIdParam },
    responses: {
      200: jsonResponse(
        "Revoked",
        okEnvelope(z.object({ agentId: z.string(), revoked: z.number().int().nonnegative() })),
      ),
      ...errors,
    },
  }),
});

/** `POST /v2/admin/agents/{agent}/feature` in the OpenAPI document (handler in dashboard.ts). */
export function documentFeatureRoute(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerPath({
    method: "post",
    path: "/v2/admin/agents/{agent}/feature",
    tags: ["operator"],
    summary: "Make the agent (by agentId or token address) the featured one",
    security: OPERATOR,
    request: { params: z.object({ agent: z.string().min(1).max(64) }) },
    responses: {
      200: jsonResponse(
        "Featured",
        okEnvelope(
          z.object({ agentId: z.string(), featured: z.literal(true), changed: z.boolean() }),
        ),
      ),
      ...errors,
    },
  });
}
