import { timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { LAUNCH_SCOPE, type VerifiedKey, verifyKey } from "../../../lib/agents/keys.ts";
import type { Sql } from "../../../lib/db/client.ts";
import type { AppEnv } from "../../env.ts";
import { HttpError } from "../../errors.ts";

export type AgentAuthEnv = { Variables: AppEnv["Variables"] & { agentKey: VerifiedKey } };

export type AgentAuthOptions = { sql: Sql; scope?: string };

/** The scheme and key of a well-formed `Authorization: Bearer <key>` (RFC 6750 2.1). */
const BEARER = /^Bearer +(\S+) *$/i;

/**
 * The key from `Authorization: Bearer <key>` or `X-Agent-Api-Key: <key>`, if any. An
 * Authorization header in another form carries no key (RFC 6750): `authenticateAgentKey`
 * refuses it, and it never falls back to the whole header.
 */
export function agentKeyFrom(headers: {
  get(name: string): string | null | undefined;
}): string | undefined {
  const auth = headers.get("authorization");
  if (auth) return BEARER.exec(auth)?.[1];
  return headers.get("x-agent-api-key")?.trim() || undefined;
}

/** RFC 6750 3: every refusal of a bearer credential names the scheme, and why when known. */
function challenge(error?: "invalid_request" | "invalid_token" | "insufficient_scope") {
  return {
    "WWW-Authenticate": `Bearer realm="launchpad"${error ? `, error="${error}"` : ""}`,
  };
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
    const verified = await authenticateAgentKey(o.sql, c.req.raw.headers, [scope]);
    c.set("agentKey", verified);
    c.set("principal", { kind: "agent", id: verified.agentId });
    await next();
  };
}

/**
 * The agent key of a request, verified and holding one of `scopes`; throws, in the spec's
 * order, 401 AGENT_AUTH_MISSING, 401 AGENT_AUTH_INVALID, 403 AGENT_SCOPE_FORBIDDEN. Every
 * middleware that accepts an agent key checks it here.
 *
 * @example
 * const key = await authenticateAgentKey(sql, c.req.raw.headers, ["agent:write"]);
 */
export async function authenticateAgentKey(
  sql: Sql,
  headers: { get(name: string): string | null | undefined },
  scopes: readonly string[],
): Promise<VerifiedKey> {
  const auth = headers.get("authorization");
  if (auth && !BEARER.test(auth)) {
    throw new HttpError("AGENT_AUTH_INVALID", {
      message: "the Authorization header must be `Bearer agk_...` (one space, then the key)",
      headers: challenge("invalid_request"),
    });
  }
  const key = agentKeyFrom(headers);
  if (!key) {
    throw new HttpError("AGENT_AUTH_MISSING", {
      message: "send your agent key as Authorization: Bearer agk_... or X-Agent-Api-Key",
      headers: challenge(),
    });
  }
  const verified = await verifyKey(sql, key);
  if (!verified) {
    throw new HttpError("AGENT_AUTH_INVALID", {
      message: "the key is unknown, revoked or expired",
      headers: challenge("invalid_token"),
    });
  }
  if (!verified.scopes.some((s) => scopes.includes(s))) {
    throw new HttpError("AGENT_SCOPE_FORBIDDEN", {
      message: `the key lacks the ${scopes[0]} scope`,
      headers: challenge("insufficient_scope"),
    });
  }
  return verified;
}

/**
 * True when `header` (an Authorization header) carries the operator token, compared in
 * constant time; false when no operator token is configured.
 */
export function isOperatorToken(
  token: string | undefined,
  header: string | null | undefined,
): boolean {
  if (!token || !header) return false;
  const got = Buffer.from(BEARER.exec(header)?.[1] ?? "");
  const want = Buffer.from(token);
  return got.length === want.length && timingSafeEqual(got, want);
}
