import type { MiddlewareHandler } from "hono";
import { verifyKey } from "../../../lib/agents/keys.ts";
import type { Sql } from "../../../lib/db/client.ts";
import type { AppEnv } from "../../env.ts";
import { agentKeyFrom } from "../agent-auth/index.ts";

export type IdentifyOptions = { sql: Sql };

/**
 * Sets `principal` for a request carrying a valid agent key, before the rate limit, so an
 * authenticated client gets its own, larger budget on every route. It never refuses: an absent
 * or bad key leaves the request anonymous, and routes that need a key still check it.
 *
 * @example
 * app.use(identify({ sql }));
 * app.use(rateLimit({ sql }));
 */
export function identify(o: IdentifyOptions): MiddlewareHandler<AppEnv> {
  return async function identifyMiddleware(c, next) {
    const key = agentKeyFrom(c.req.raw.headers);
    const verified = key ? await verifyKey(o.sql, key).catch(() => undefined) : undefined;
    if (verified) c.set("principal", { kind: "agent", id: verified.agentId });
    await next();
  };
}
