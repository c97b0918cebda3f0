import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import type { DashboardAgent } from "../../lib/agents/read.ts";
import type { Sql } from "../../lib/db/client.ts";
import { listAnomalies } from "../../lib/policy/anomalies.ts";
import { PolicyRules as PolicyRulesSchema } from "../../lib/policy/model.ts";
import { activePolicy, policyVersions, savePolicy } from "../../lib/policy/store.ts";
import { UpstreamError } from "../../services/http.ts";
import {
  type StewardClient,
  stewardChainRefusal,
  stewardRefusal,
} from "../../services/steward/client.ts";
import { type StewardRulesContext, stewardRules } from "../../services/steward/rules.ts";
import type { AppEnv } from "../env.ts";
import { HttpError, invalidInput } from "../errors.ts";
import {
  AGENT_KEY_SECURITY,
  AgentParams,
  COMMON_ERRORS,
  errorResponse,
  jsonBody,
  jsonResponse,
  okEnvelope,
} from "../http/schemas.ts";
import { agentOwner } from "../middleware/agent-owner/index.ts";
import { agentOf, agentPath } from "../middleware/agent-path/index.ts";
import { operatorOnly } from "../middleware/operator/index.ts";

/** The signer call a save makes: Steward's own rules of the agent (the steward client). */
export type PolicySigner = Pick<StewardClient, "setPolicyRules">;

export type PolicyRouteDeps = {
  sql: Sql;
  adminToken?: string;
  steward?: PolicySigner;
  /** What the Steward rules written on a save name besides the policy (router, platform). */
  rulesContext?: StewardRulesContext;
};

const params = AgentParams;

export const PolicyVersionSchema = z
  .object({
    policyId: z.string(),
    version: z.number().int(),
    rules: z.record(z.string(), z.unknown()).openapi({
      description: "The policy document (docs/policies.md): venues, sides, limits, allowlists",
    }),
    createdAt: z.string(),
    createdBy: z.object({ kind: z.enum(["agent", "operator", "signer"]), id: z.string() }),
  })
  .openapi("PolicyVersion");

/**
 * The signer's answer to a refused or failed call as the API's error: a refusal by Steward's
 * own rules names the failed rule; a wallet that cannot pay is 409, another refusal by the chain
 * 502; an unreachable signer is 503 (nothing was signed).
 *
 * @example
 * try { await steward.sendTransaction(...) } catch (e) { throw signerError(e); }
 */
export function signerError(error: unknown): unknown {
  if (!(error instanceof UpstreamError) || error.service !== "steward") return error;
  const refusal = stewardRefusal(error);
  if (refusal) {
    // Steward's own rules refused it (defense in depth): the failed rule names the refusal.
    const failed = refusal.results.find((r) => !r.passed) ?? refusal.results[0];
    const evaluator = failed?.type ?? "policy";
    const reason = failed?.reason ?? "refused by the signer's policy";
    return new HttpError(refusal.manual ? "policy_needs_manual" : "policy_denied", {
      message: `${reason} (Steward transaction ${refusal.txId})`,
      details: [{ path: evaluator, message: reason }],
      reason: `steward_${evaluator.replaceAll("-", "_")}`,
      cause: error,
    });
  }
  const chain = stewardChainRefusal(error);
  if (chain) {
    // The chain refused the wallet's transaction at the signer: nothing was sent. A wallet
    // that cannot pay is the agent's to fund (409); any other refusal is the chain's (502).
    const funds = chain.reason === "insufficient_funds";
    return new HttpError(funds ? "conflict" : "upstream_error", {
      message: funds
        ? "the agent's wallet cannot pay for this transaction (gas and value); fund it, then send the order again with a new Idempotency-Key; nothing was sent"
        : `the chain refused the wallet's transaction at the signer: ${chain.message}; nothing was sent`,
      cause: error,
    });
  }
  if (error.kind === "unavailable") {
    return new HttpError("unavailable", {
      message: "the signer is unavailable; nothing was signed, retry with backoff",
      cause: error,
    });
  }
  return new HttpError("upstream_error", { message: error.message, cause: error });
}

function walletOf(a: DashboardAgent): string {
  if (!a.walletId) {
    throw new HttpError("not_found", { message: "this agent has no signer wallet yet" });
  }
  return a.walletId;
}

function needSigner(s: PolicySigner | undefined): PolicySigner {
  if (!s) throw new HttpError("unavailable", { message: "the signer is not configured" });
  return s;
}

/**
 * `GET|PUT /v2/agents/{agent}/policy` and `GET …/policy/versions`. Reads are open; a
 * save needs the agent's key (`agent:write`) or the operator token, is validated here (the
 * ceilings, every field) and kept in Postgres as a new version; the rules Steward can enforce
 * are written to it in the same step (docs/policies.md).
 *
 * @example
 * registerPolicy(app, { sql, adminToken, steward });
 */
export function registerPolicy(app: OpenAPIHono<AppEnv>, d: PolicyRouteDeps) {
  const base = "/v2/agents/{agent}/policy";
  const middleware = [agentPath({ sql: d.sql })];
  const errors = {
    ...COMMON_ERRORS,
    404: errorResponse("No agent has this token address, or it has no wallet yet"),
    503: errorResponse("The signer did not answer"),
  };
  app.openapi(
    {
      method: "get",
      path: base,
      tags: ["policy"],
      summary: "The agent's active trading policy",
      request: { params },
      middleware,
      responses: {
        200: jsonResponse("The active version", okEnvelope(PolicyVersionSchema)),
        ...errors,
      },
    },
    async (c) => {
      const walletId = walletOf(agentOf(c));
      return c.json({ ok: true as const, data: await activePolicy(d.sql, walletId) }, 200);
    },
  );
  app.openapi(
    {
      method: "get",
      path: `${base}/versions`,
      tags: ["policy"],
      summary: "Every version of the agent's policy, newest first, with who saved it",
      request: { params },
      middleware,
      responses: {
        200: jsonResponse(
          "Versions, newest first",
          okEnvelope(z.object({ items: z.array(PolicyVersionSchema) })),
        ),
        ...errors,
      },
    },
    async (c) => {
      const walletId = walletOf(agentOf(c));
      const items = await policyVersions(d.sql, walletId);
      return c.json({ ok: true as const, data: { items } }, 200);
    },
  );

  app.openapi(
    {
      method: "put",
      path: base,
      tags: ["policy"],
      summary: "Save a new version of the agent's trading policy",
      description:
        "Validated here (every field; a value above a platform ceiling is refused naming the field and the ceiling), then stored as a new immutable version with a new policyId that becomes the active one. Signing calls already running keep the version they began with; open positions are untouched; closing is always allowed.",
      security: AGENT_KEY_SECURITY,
      // The key (or operator token) and the agent before the body: 401/403/404 before 400.
      middleware: [agentOwner({ sql: d.sql, adminToken: d.adminToken })] as const,
      request: {
        params,
        body: jsonBody(PolicyRulesSchema),
      },
      responses: {
        200: jsonResponse("The saved version", okEnvelope(PolicyVersionSchema)),
        ...errors,
        400: errorResponse("validation_failed: a field is invalid or above its ceiling"),
        401: errorResponse("AGENT_AUTH_MISSING or AGENT_AUTH_INVALID"),
        403: errorResponse("AGENT_SCOPE_FORBIDDEN or not_authorized"),
      },
    },
    async (c) => {
      const rules = c.req.valid("json");
      const a = agentOf(c);
      if (!a.walletId)
        throw new HttpError("not_found", { message: "this agent has no wallet yet" });
      const actor = c.get("actor");
      const steward = needSigner(d.steward);
      const walletId = a.walletId;
      const saved = await savePolicy(d.sql, {
        walletId,
        rules,
        actor: { kind: actor.kind, id: actor.id },
        // Steward's copy of the rules it can enforce is written before the version commits: a
        // signer that refuses them leaves the service's policy unchanged too.
        beforeCommit: (v) =>
          steward
            .setPolicyRules(walletId, stewardRules(v.rules, d.rulesContext ?? { platform: [] }))
            .then(() => undefined)
            .catch((e: unknown) => {
              throw signerError(e);
            }),
      });
      return c.json({ ok: true as const, data: saved }, 200);
    },
  );

  // The anomaly panel (operators): what the six-hourly auditor found, newest first.
  app.openAPIRegistry.registerPath({
    method: "get",
    path: "/v2/admin/anomalies",
    tags: ["operator"],
    summary: "What the six-hourly policy auditor found, newest first",
    security: [{ operatorToken: [] }],
    request: { query: AnomalyQuery },
    responses: {
      200: jsonResponse(
        "Anomalies",
        okEnvelope(z.object({ items: z.array(z.record(z.string(), z.unknown())) })),
      ),
      400: errorResponse("validation_failed: a query parameter is invalid"),
      401: errorResponse("not_authenticated: operator token missing or wrong"),
      404: errorResponse("not_found: the operator API is off (ADMIN_TOKEN unset)"),
    },
  });
  app.get("/v2/admin/anomalies", operatorOnly(d.adminToken), async (c) => {
    const q = AnomalyQuery.safeParse(c.req.query());
    if (!q.success) throw invalidInput("validation_failed", q.error.issues);
    const items = await listAnomalies(d.sql, q.data);
    return c.json({ ok: true as const, data: { items } }, 200);
  });
}

const AnomalyQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  agentId: z.string().min(1).max(200).optional(),
});
