import type { MiddlewareHandler } from "hono";
import { AGENT_WRITE_SCOPE } from "../../../lib/agents/keys.ts";
import type { Actor } from "../../../lib/agents/records.ts";
import type { Sql } from "../../../lib/db/client.ts";
import type { AppEnv } from "../../env.ts";
import { HttpError } from "../../errors.ts";
import { authenticateAgentKey, isOperatorToken } from "../agent-auth/index.ts";
import { agentOf, agentPath } from "../agent-path/index.ts";

export type AgentOwnerEnv = { Variables: AppEnv["Variables"] & { actor: Actor } };

export type AgentOwnerOptions = {
  sql: Sql;
  /** The operator's bearer token; unset: agents only. */
  adminToken?: string;
  /** Scopes any one of which lets an agent key through (default `agent:write`). */
  scopes?: readonly string[];
};

/**
 * Lets a write to an `/v2/agents/{agent}/...` route through when it comes from that agent (its
 * own key with one of `scopes`) or from the operator (`Authorization: Bearer <ADMIN_TOKEN>`,
 * compared in constant time). Credentials are checked before the path: 401 no or bad
 * credentials, 403 scope missing, then `agentPath`'s 400 malformed and 404 unknown agent, then
 * 403 `not_authorized` when the key's agent id is not the path's. Sets `agent`, `actor` and
 * the principal; the key is never logged.
 *
 * @example
 * createRoute({ ..., middleware: [agentOwner({ sql, adminToken })] });
 */
export function agentOwner(o: AgentOwnerOptions): MiddlewareHandler<AgentOwnerEnv> {
  const scopes = o.scopes ?? [AGENT_WRITE_SCOPE];
  const resolve = agentPath<AgentOwnerEnv>({ sql: o.sql });
  return async function agentOwnerMiddleware(c, next) {
    let actor: Actor;
    if (isOperatorToken(o.adminToken, c.req.header("authorization"))) {
      actor = { kind: "operator", id: "admin-api" };
      c.set("principal", { kind: "user", id: "operator" });
    } else {
      const verified = await authenticateAgentKey(o.sql, c.req.raw.headers, scopes);
      actor = { kind: "agent", id: verified.agentId };
      c.set("principal", { kind: "agent", id: verified.agentId });
    }
    c.set("actor", actor);
    await resolve(c, async () => {
      if (actor.kind === "agent" && actor.id !== agentOf(c).agentId) {
        throw new HttpError("not_authorized", {
          message: "this key belongs to another agent; a key manages only its own agent",
        });
      }
      await next();
    });
  };
}
