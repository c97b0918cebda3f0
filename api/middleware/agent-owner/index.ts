import type { MiddlewareHandler } from "hono";
import { AGENT_WRITE_SCOPE } from "../../../lib/agents/keys.ts";
import { type DashboardAgent, findAgentByToken } from "../../../lib/dashboard/read.ts";
import type { Actor } from "../../../lib/dashboard/records.ts";
import type { Sql } from "../../../lib/db/client.ts";
import type { AppEnv } from "../../env.ts";
import { HttpError } from "../../errors.ts";
import { authenticateAgentKey, isOperatorToken } from "../agent-auth/index.ts";

export type AgentOwnerEnv = {
  Variables: AppEnv["Variables"] & { dashboardAgent: DashboardAgent; actor: Actor };
};

export type AgentOwnerOptions = { sql: Sql; adminToken?: string };

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * Lets a dashboard write through when it comes from the agent named by `:tokenAddress` (its
 * key with the `agent:write` scope) or from an operator (`Authorization: Bearer <ADMIN_TOKEN>`).
 * Order: 401 no or bad credentials, 403 scope missing, 400 malformed address, 404 unknown
 * agent, 403 `not_authorized` for another agent's key. Sets `dashboardAgent` and `actor`.
 *
 * @example
 * createRoute({ ..., middleware: [agentOwner({ sql, adminToken })] });
 */
export function agentOwner(o: AgentOwnerOptions): MiddlewareHandler<AgentOwnerEnv> {
  return async function agentOwnerMiddleware(c, next) {
    const header = c.req.header("authorization");
    let actor: Actor;
    if (isOperatorToken(o.adminToken, header)) {
      actor = { kind: "operator", id: "admin-api" };
    } else {
      const verified = await authenticateAgentKey(o.sql, c.req.raw.headers, [AGENT_WRITE_SCOPE]);
      actor = { kind: "agent", id: verified.agentId };
      c.set("principal", { kind: "agent", id: verified.agentId });
    }
    const raw = c.req.param("tokenAddress") ?? "";
    if (!ADDRESS.test(raw)) {
      throw new HttpError("validation_failed", {
        message: "tokenAddress: must be a 20-byte hex address (0x + 40 hex digits)",
        details: [{ path: "tokenAddress", message: "must be a 20-byte hex address" }],
      });
    }
    const agent = await findAgentByToken(o.sql, raw.toLowerCase());
    if (!agent) throw new HttpError("not_found", { message: `no agent has token ${raw}` });
    if (actor.kind === "agent" && actor.id !== agent.agentId) {
      throw new HttpError("not_authorized", {
        message: "this key belongs to another agent; a key writes only its own agent",
      });
    }
    c.set("dashboardAgent", agent);
    c.set("actor", actor);
    await next();
  };
}
