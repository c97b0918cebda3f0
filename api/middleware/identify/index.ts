import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { verifyKey } from "../../../lib/agents/keys.ts";
import type { Sql } from "../../../lib/db/client.ts";
import type { AppEnv } from "../../env.ts";
import { agentKeyFrom, isOperatorToken } from "../agent-auth/index.ts";
import { COOKIES } from "../session/cookies.ts";
import { cookieValue, findSession } from "../session/store.ts";

export type IdentifyOptions = {
  sql: Sql;
  /** The web role's credential (`X-Service-Key`); unset, no request is a service. */
  serviceKey?: string;
  /** The operator token (ADMIN_TOKEN); unset, no request is the operator. */
  adminToken?: string;
};

/** The header our own roles present their service key in. */
export const SERVICE_KEY_HEADER = "x-service-key";

/**
 * Sets `principal` before the rate limit, so a known client gets its own budget on every
 * route: the web role presenting the service key counts as `service:web` (its server-side
 * reads serve many visitors; the web app limits each visitor itself), the operator token as
 * `user:operator` (its monitoring of every API must not share one address's anonymous budget), a
 * valid agent key as its agent, a live SIWE or patron session cookie as its user. It never
 * refuses: an absent or bad credential leaves the request anonymous, and routes that need a key
 * still check it. A principal grants no access, only a budget.
 *
 * @example
 * app.use(identify({ sql, serviceKey: webServiceKey(config) }));
 * app.use(rateLimit({ sql }));
 */
export function identify(o: IdentifyOptions): MiddlewareHandler<AppEnv> {
  const want = o.serviceKey ? digest(o.serviceKey) : undefined;
  return async function identifyMiddleware(c, next) {
    const service = c.req.header(SERVICE_KEY_HEADER);
    if (want && service !== undefined && timingSafeEqual(digest(service), want)) {
      c.set("principal", { kind: "service", id: "web" });
      return next();
    }
    if (isOperatorToken(o.adminToken, c.req.header("authorization"))) {
      // The same principal agent-owner gives the operator.
      c.set("principal", { kind: "user", id: "operator" });
      return next();
    }
    const key = agentKeyFrom(c.req.raw.headers);
    const verified = key ? await verifyKey(o.sql, key).catch(() => undefined) : undefined;
    if (verified) {
      c.set("principal", { kind: "agent", id: verified.agentId });
      return next();
    }
    // A live session cookie is a signed-in user: the authenticated budget, counted per wallet
    // (or patron) as requireSession names it, whichever of its sessions or IPs it comes from.
    for (const kind of ["siwe", "patron"] as const) {
      const id = cookieValue(c, kind === "siwe" ? COOKIES.siwe : COOKIES.patron);
      const session = id ? await findSession(o.sql, kind, id).catch(() => undefined) : undefined;
      if (session) {
        c.set("principal", {
          kind: "user",
          id: session.kind === "siwe" ? session.address : `patron:${session.patronId}`,
        });
        break;
      }
    }
    await next();
  };
}

/** Equal-length digests, so the comparison takes the same time whatever was sent. */
function digest(s: string): Buffer {
  return createHash("sha256").update(s).digest();
}
