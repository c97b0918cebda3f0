import type { MiddlewareHandler } from "hono";
import { LAUNCH_SCOPE, type VerifiedKey, verifyKey } from "../../../lib/agents/keys.ts";
import type { Sql } from "../../../lib/db/client.ts";
import type { AppEnv } from "../../env.ts";
import { HttpError } from "../../errors.ts";

export type AgentAuthEnv = { Variables: AppEnv["Variables"] & { agentKey: VerifiedKey } };

export type AgentAuthOptions = { sql: Sql; scope?: string };

/** The key from `Authorization: Bearer <key>` or `X-Agent-Api-Key: <key>`, if any. */
export function agentKeyFrom(headers: {
  get(name: string): string | null | undefined;
}): string | undefined {
  const auth = headers.get("authorization");
  if (auth) return /^Bearer\s+(\S+)\s*$/i.exec(auth)?.[1] ?? auth;
  return headers.get("x-agent-api-key")?.trim() || undefined;
}

/**
 * Authenticates an agent API key, in the spec's order: no key 401 AGENT_AUTH_MISSING;
 * unknown, revoked or expired 401 AGENT_AUTH_INVALID; without the scope 403
 * AGENT_SCOPE_FORBIDDEN. Sets `agentKey` and the principal. The key is never logged.
 *
 * @example
 * app.post("/v2/agents/launch", agentAuth({ sql }), handler);
 */
export function agentAuth(o: AgentAuthOptions): MiddlewareHandler<AgentAuthEnv> {
  const scope = o.scope ?? LAUNCH_SCOPE;
  return async function agentAuthMiddleware(c, next) {
    const key = agentKeyFrom(c.req.raw.headers);
    if (!key) {
      throw new HttpError("AGENT_AUTH_MISSING", {
        message: "send your agent key as Authorization: Bearer agk_... or X-Agent-Api-Key",
      });
    }
    const verified = await verifyKey(o.sql, key);
    if (!verified) {
      throw new HttpError("AGENT_AUTH_INVALID", {
        message: "the key is unknown, revoked or expired",
      });
    }
    if (!verified.scopes.includes(scope)) {
      throw new HttpError("AGENT_SCOPE_FORBIDDEN", { message: `the key lacks the ${scope} scope` });
    }
    c.set("agentKey", verified);
    c.set("principal", { kind: "agent", id: verified.agentId });
    await next();
  };
}
