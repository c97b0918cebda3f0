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

/**
 * Lets through the operator (`Authorization: Bearer <ADMIN_TOKEN>`, compared in constant
 * time) or the agent named by the `agentId` path parameter with its own key carrying one of
 * `scopes` (default `agent:write`: a launch-only key cannot manage webhooks). Another
 * agent's key is 403 `not_authorized`; the key is never logged.
 *
 * @example
 * app.use("/v2/agents/:agentId/webhooks/*", agentOrOperator({ sql, adminToken }));
 */
export function agentOrOperator(o: AgentOrOperatorOptions): MiddlewareHandler<AppEnv> {
  const scopes = o.scopes ?? [AGENT_WRITE_SCOPE];
  return async function agentOrOperatorMiddleware(c, next) {
    if (isOperatorToken(o.adminToken, c.req.header("authorization"))) {
      c.set("principal", { kind: "user", id: "operator" });
      return next();
    }
    const verified = await authenticateAgentKey(o.sql, c.req.raw.headers, scopes);
    if (verified.agentId !== c.req.param("agentId")) {
      throw new HttpError("not_authorized", {
        message: "an agent key manages only its own agent's webhooks",
      });
    }
    c.set("principal", { kind: "agent", id: verified.agentId });
    await next();
  };
}
