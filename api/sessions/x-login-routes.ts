import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { setCookie } from "hono/cookie";
import type { Sql } from "../../lib/db/client.ts";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";
import { errorResponse, jsonResponse, okEnvelope } from "../http/schemas.ts";
import { SESSION_LIMITS } from "../limits.ts";
import { sameOrigin } from "../middleware/same-origin/index.ts";
import { COOKIES } from "../middleware/session/cookies.ts";
import { patronSession, requireSession } from "../middleware/session/index.ts";
import {
  type CookiePolicy,
  cookieValue,
  createSession,
  endSession,
  setSessionCookie,
} from "../middleware/session/store.ts";
import { finishXLogin, startXLogin, type XOAuthDeps } from "./x-oauth.ts";

export type SocialRouteDeps = {
  sql: Sql;
  webUrl: string;
  origins: string[];
  cookie: CookiePolicy;
  /** Absent: X login is not configured and the routes answer 503. */
  oauth?: XOAuthDeps;
};

const redirect = (description: string) => ({
  description,
  headers: z.object({ Location: z.string().openapi({ description: "Where to go next" }) }),
});

export const PatronInfo = z
  .object({
    xHandle: z.string(),
    xId: z.string(),
    displayName: z.string(),
    avatarUrl: z.string(),
  })
  .openapi("PatronSession");

/**
 * Patron login over X OAuth 2.0 with PKCE: login (302 to X), callback (302 to the web app
 * with `service_session` set), me, logout.
 */
export function registerSocialAuth(app: OpenAPIHono<AppEnv>, d: SocialRouteDeps) {
  const { sql } = d;
  const oauth = () => {
    if (!d.oauth) {
      throw new HttpError("unavailable", { message: "X login is not configured on this API" });
    }
    return d.oauth;
  };

  app.openapi(
    createRoute({
      method: "get",
      path: "/auth/social/login",
      tags: ["auth"],
      summary: "Patron login: 302 to X's OAuth 2.0 authorize page (PKCE S256)",
      responses: {
        302: redirect("To X; the state is also set in the `oauth_state` cookie (10 minutes)"),
        429: errorResponse("rate_limited"),
        503: errorResponse("unavailable: X login is not configured"),
      },
    }),
    async (c) => {
      const { url, state } = await startXLogin(oauth());
      setCookie(c, COOKIES.oauthState, state, {
        httpOnly: true,
        sameSite: "Lax",
        secure: d.cookie.secure,
        path: "/auth/social",
        maxAge: SESSION_LIMITS.nonceTtlSeconds,
      });
      return c.redirect(url, 302);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/auth/social/callback",
      tags: ["auth"],
      summary: "X redirects here: exchange the code, create the patron session, 302 to the web app",
      request: {
        query: z.object({
          state: z.string().min(1).max(500),
          code: z.string().min(1).max(2000).optional(),
          error: z.string().max(200).optional(),
        }),
      },
      responses: {
        302: redirect("To WEB_URL, with the `service_session` cookie set (7 days)"),
        400: errorResponse("validation_failed: no state"),
        401: errorResponse(
          "not_authenticated: state of another browser, expired or reused; the user declined; X refused the code",
        ),
        502: errorResponse("upstream_error: X failed; retry the login"),
        503: errorResponse("unavailable: X login is not configured"),
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const deps = oauth();
      if (q.error || !q.code) {
        throw new HttpError("not_authenticated", {
          message: `X login was not granted (${q.error ?? "no code"})`,
        });
      }
      const patronId = await finishXLogin(deps, {
        state: q.state,
        cookieState: cookieValue(c, COOKIES.oauthState),
        code: q.code,
      });
      const s = await createSession(sql, { kind: "patron", patronId });
      setSessionCookie(c, COOKIES.patron, s.id, s.expiresAt, d.cookie);
      setCookie(c, COOKIES.oauthState, "", { path: "/auth/social", maxAge: 0 });
      return c.redirect(d.webUrl, 302);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/auth/social/me",
      tags: ["auth"],
      summary: "The signed-in patron",
      security: [{ patronSession: [] }],
      middleware: [requireSession({ sql, kind: "patron" })] as const,
      responses: {
        200: jsonResponse("The patron's X account", okEnvelope(PatronInfo)),
        401: errorResponse("not_authenticated: no, unknown, expired or ended `service_session`"),
      },
    }),
    async (c) => {
      const { patronId } = patronSession(c);
      const [p] = await sql<
        { x_handle: string; x_id: string; display_name: string; avatar_url: string | null }[]
      >`
        select x_handle, x_id, display_name, avatar_url from app.patrons where patron_id = ${patronId}`;
      if (!p) throw new HttpError("not_authenticated", { message: "the patron no longer exists" });
      return c.json(
        {
          ok: true as const,
          data: {
            xHandle: p.x_handle,
            xId: p.x_id,
            displayName: p.display_name,
            avatarUrl: p.avatar_url ?? "",
          },
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/auth/social/logout",
      tags: ["auth"],
      summary: "End the patron session",
      security: [{ patronSession: [] }],
      middleware: [sameOrigin({ origins: d.origins })] as const,
      responses: {
        200: jsonResponse("Signed out", okEnvelope(z.object({ signedOut: z.literal(true) }))),
        401: errorResponse("not_authenticated: no live patron session"),
        403: errorResponse("not_authorized: a cross-site Origin"),
      },
    }),
    async (c) => {
      if (!(await endSession(c, sql, "patron", COOKIES.patron, d.cookie)))
        throw new HttpError("not_authenticated", { message: "no live patron session to end" });
      return c.json({ ok: true as const, data: { signedOut: true as const } }, 200);
    },
  );
}
