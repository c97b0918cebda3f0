import type { MiddlewareHandler } from "hono";
import { AGENT_WRITE_SCOPE } from "../../../lib/agents/keys.ts";
import type { Sql } from "../../../lib/db/client.ts";
import type { AppEnv } from "../../env.ts";
import { HttpError } from "../../errors.ts";
import { authenticateAgentKey, isOperatorToken } from "../agent-auth/index.ts";

export type AgentOrOperatorOptions = {
  sql: Sql;
  /** The operator's bearer token; unset: agents only. */
  adminToken?: string;
  /** Scopes any one of which lets an agent key through. */
  scopes?: readonly string[];
};

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * The agent an `/v2/agents/{agentId}` path names: by its token address (as every other agent
 * route takes it) or by its id. An address no agent has is kept as given: the route then
 * answers 404, or 403 to an agent's key, as for an unknown id.
 */
export async function resolveAgentRef(sql: Sql, ref: string): Promise<string> {
  if (!ADDRESS.test(ref)) return ref;
  const [row] = await sql<{ agent_id: string }[]>`select agent_id from app.agents
    where token_address = ${ref.toLowerCase()}`;
  return row?.agent_id ?? ref;
}

/**
 * Lets through the operator (`Authorization: Bearer <ADMIN_TOKEN>`, compared in constant
 * time) or the agent named by the `agentId` path parameter (its id or its token address) with
 * its own key carrying one of `scopes` (default `agent:write`: a launch-only key cannot manage
 * webhooks). Another agent's key is 403 `not_authorized`; the key is never logged. Sets
 * `agentId` to the agent's id.
 *
 * @example
 * app.use("/v2/agents/:agentId/webhooks/*", agentOrOperator({ sql, adminToken }));
 */
export function agentOrOperator(o: AgentOrOperatorOptions): MiddlewareHandler<AppEnv> {
  const scopes = o.scopes ?? [AGENT_WRITE_SCOPE];
  return async function agentOrOperatorMiddleware(c, next) {
    if (isOperatorToken(o.adminToken, c.req.header("authorization"))) {
      c.set("principal", { kind: "user", id: "operator" });
      c.set("agentId", await resolveAgentRef(o.sql, c.req.param("agentId") ?? ""));
      return next();
    }
    const verified = await authenticateAgentKey(o.sql, c.req.raw.headers, scopes);
    const agentId = await resolveAgentRef(o.sql, c.req.param("agentId") ?? "");
    if (verified.agentId !== agentId) {
      throw new HttpError("not_authorized", {
        message: "an agent key manages only its own agent's webhooks",
      });
    }
    c.set("principal", { kind: "agent", id: verified.agentId });
    c.set("agentId", agentId);
    await next();
  };
}
