import type { Context, MiddlewareHandler } from "hono";
import type { Sql } from "../../../lib/db/client.ts";
import type { AppEnv } from "../../env.ts";
import { HttpError } from "../../errors.ts";
import type { Session } from "../../session.ts";
import { COOKIES } from "./cookies.ts";
import { cookieValue, findSession } from "./store.ts";

export type RequireSessionOptions = { sql: Sql; kind: Session["kind"] };

/**
 * Requires a live session cookie of one kind (`siwe`: `siwe_session`; `patron`:
 * `service_session`). Missing, unknown, expired or ended: 401 `not_authenticated`. Sets
 * `session` and the principal (a wallet's principal id is its lowercase address).
 *
 * @example
 * app.use("/v2/users/me/*", requireSession({ sql, kind: "siwe" }));
 */
export function requireSession(o: RequireSessionOptions): MiddlewareHandler<AppEnv> {
  const cookie = o.kind === "siwe" ? COOKIES.siwe : COOKIES.patron;
  return async function requireSessionMiddleware(c, next) {
    const id = cookieValue(c, cookie);
    if (!id) {
      throw new HttpError("not_authenticated", {
        message:
          o.kind === "siwe"
            ? `no ${cookie} cookie: sign in with GET /auth/nonce then POST /auth/verify`
            : `no ${cookie} cookie: log in at GET /auth/social/login`,
      });
    }
    const session = await findSession(o.sql, o.kind, id);
    if (!session) {
      throw new HttpError("not_authenticated", {
        message: "the session is unknown, expired or ended; sign in again",
      });
    }
    c.set("session", session);
    c.set("principal", {
      kind: "user",
      id: session.kind === "siwe" ? session.address : `patron:${session.patronId}`,
    });
    await next();
  };
}

/** The SIWE session `requireSession` set (a route without it is a programming error). */
export function siweSession(c: Context<AppEnv>): Extract<Session, { kind: "siwe" }> {
  const s = c.get("session");
  if (s?.kind !== "siwe") throw new Error("route lacks requireSession({ kind: 'siwe' })");
  return s;
}

/** The patron session `requireSession` set. */
export function patronSession(c: Context<AppEnv>): Extract<Session, { kind: "patron" }> {
  const s = c.get("session");
  if (s?.kind !== "patron") throw new Error("route lacks requireSession({ kind: 'patron' })");
  return s;
}
