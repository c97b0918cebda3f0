import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { Hono } from "hono";
import type { Logger } from "../../../lib/logger.ts";
import { X_PATHS, type XUser } from "../../../services/x/protocol.ts";
import { Timelines } from "./accounts.ts";
import { registerTimelineRoutes, type XLimitOptions } from "./timeline.ts";

export type XStandInParameters = {
  clientId: string;
  clientSecret: string;
  log: Logger;
  /** The account that consents when the authorize page is auto-consenting (tests). */
  defaultUser?: XUser;
  /** A user token of the service's own account (the announcer), as X's portal issues one. */
  serviceToken?: string;
  /** The app's bearer token (reads: users by username, user timelines). */
  appToken?: string;
  /** The tier whose read windows are enforced (default basic), lower counts, time scale. */
  rateLimits?: XLimitOptions;
  /** Where accounts and posts are kept (`<data dir>/x/state.json`); unset: memory only. */
  statePath?: string;
};

/** Protocol limits of X's OAuth 2.0 (PROTOCOLS.md): codes live 30 s, access tokens 2 h. */
const CODE_TTL_MS = 30_000;
const TOKEN_TTL_S = 7200;

type Grant = {
  clientId: string;
  redirectUri: string;
  challenge: string;
  method: string;
  scope: string;
  user: XUser;
  expires: number;
};

const eq = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};
// X's problem body (the OpenAPI's Problem: type and title, with status and detail).
const problem = (title: string, detail: string, status: number) => ({
  title,
  detail,
  type: "about:blank",
  status,
});

/**
 * A local stand-in of X's OAuth 2.0 (authorization code + PKCE) and the slice of API v2 the
 * service uses: `/i/oauth2/authorize` (auto-consent: it redirects at once with a code for
 * the current test user), `/2/oauth2/token`, `/2/users/me`, `POST /2/tweets`. Test-only
 * controls under `/stand-in/`: the consenting user, posted tweets, failure injection. With
 * `statePath`, accounts and posts survive a restart (OAuth codes and user tokens do not: they
 * are short-lived, and the service's own token is configured).
 */
export function createXStandIn(p: XStandInParameters) {
  const app = new Hono();
  const grants = new Map<string, Grant>();
  const tokens = new Map<string, { user: XUser; scope: string; expires: number }>();
  const refreshTokens = new Map<string, { user: XUser; scope: string; clientId: string }>();
  const timelines = new Timelines(p.statePath);
  let user: XUser = p.defaultUser ?? {
    id: "1500000000000000001",
    username: "patron_one",
    name: "Patron One",
    profile_image_url: "https://pbs.twimg.com/profile_images/1/patron_one.png",
  };
  let failTweets = false;
  if (p.serviceToken) {
    tokens.set(p.serviceToken, {
      user: { id: "1500000000000000000", username: "launchpad", name: "Launchpad" },
      scope: "tweet.read tweet.write users.read",
      expires: Number.MAX_SAFE_INTEGER,
    });
  }

  app.get(X_PATHS.authorize, (c) => {
    const q = c.req.query();
    if (q.response_type !== "code" || q.client_id !== p.clientId || !q.redirect_uri || !q.state) {
      return c.json(
        problem(
          "Invalid Request",
          "response_type, client_id, redirect_uri and state are required",
          400,
        ),
        400,
      );
    }
    // X takes the method in either case: twitter-api-v2 sends "s256", arctic "S256".
    const method = (q.code_challenge_method ?? "").toUpperCase();
    if (!q.code_challenge || !["S256", "PLAIN"].includes(method)) {
      return c.json(
        problem("Invalid Request", "code_challenge and code_challenge_method are required", 400),
        400,
      );
    }
    const code = randomBytes(24).toString("base64url");
    grants.set(code, {
      clientId: q.client_id,
      redirectUri: q.redirect_uri,
      challenge: q.code_challenge,
      method,
      scope: q.scope ?? "",
      user,
      expires: Date.now() + CODE_TTL_MS,
    });
    const to = new URL(q.redirect_uri);
    to.searchParams.set("state", q.state);
    to.searchParams.set("code", code);
    return c.redirect(to.toString(), 302);
  });

  // The token endpoint as clients really call it: a form body (arctic, RFC 6749) or a JSON
  // body (twitter-api-v2), the client's credentials in Basic auth or, for a public client,
  // `client_id` in the body. Grants: authorization_code (PKCE) and refresh_token (rotated).
  app.post(X_PATHS.token, async (c) => {
    const json = (c.req.header("content-type") ?? "").includes("application/json");
    const raw = json
      ? ((await c.req.json().catch(() => ({}))) as Record<string, unknown>)
      : await c.req.parseBody();
    const form = Object.fromEntries(
      Object.entries(raw).map(([k, v]) => [k, typeof v === "string" ? v : ""]),
    );
    const basic = /^Basic (.+)$/.exec(c.req.header("authorization") ?? "")?.[1];
    const [id, secret] = basic
      ? Buffer.from(basic, "base64").toString().split(":")
      : [form.client_id ?? "", undefined];
    const authed = id === p.clientId && (basic ? eq(secret ?? "", p.clientSecret) : true);
    if (!authed)
      return c.json(
        { error: "unauthorized_client", error_description: "bad client credentials" },
        401,
      );
    const invalid = (what: string) =>
      c.json(
        {
          error: "invalid_request",
          error_description: `Value passed for the ${what} was invalid.`,
        },
        400,
      );
    let grant: { user: XUser; scope: string };
    if (form.grant_type === "authorization_code") {
      const code = form.code ?? "";
      const g = grants.get(code);
      grants.delete(code);
      const verifier = form.code_verifier ?? "";
      const expected =
        g?.method === "S256" ? createHash("sha256").update(verifier).digest("base64url") : verifier;
      if (
        !g ||
        g.expires < Date.now() ||
        g.clientId !== id ||
        g.redirectUri !== form.redirect_uri ||
        !eq(expected, g.challenge)
      ) {
        return invalid("authorization code");
      }
      grant = g;
    } else if (form.grant_type === "refresh_token") {
      const r = refreshTokens.get(form.refresh_token ?? "");
      refreshTokens.delete(form.refresh_token ?? "");
      if (!r || r.clientId !== id) return invalid("refresh token");
      grant = r;
    } else {
      return c.json(
        {
          error: "unsupported_grant_type",
          error_description: "only authorization_code and refresh_token",
        },
        400,
      );
    }
    const accessToken = randomBytes(32).toString("base64url");
    tokens.set(accessToken, {
      user: grant.user,
      scope: grant.scope,
      expires: Date.now() + TOKEN_TTL_S * 1000,
    });
    let refreshToken: string | undefined;
    if (grant.scope.split(" ").includes("offline.access")) {
      refreshToken = randomBytes(32).toString("base64url");
      refreshTokens.set(refreshToken, { user: grant.user, scope: grant.scope, clientId: id });
    }
    return c.json({
      token_type: "bearer",
      expires_in: TOKEN_TTL_S,
      access_token: accessToken,
      scope: grant.scope,
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
    });
  });

  const bearer = (h: string | undefined) => {
    const t = tokens.get(/^Bearer (.+)$/.exec(h ?? "")?.[1] ?? "");
    return t && t.expires > Date.now() ? t : undefined;
  };

  app.get(X_PATHS.me, (c) => {
    const t = bearer(c.req.header("authorization"));
    if (!t) return c.json(problem("Unauthorized", "Unauthorized", 401), 401);
    return c.json({ data: t.user });
  });

  app.post(X_PATHS.tweets, async (c) => {
    const t = bearer(c.req.header("authorization"));
    if (!t) return c.json(problem("Unauthorized", "Unauthorized", 401), 401);
    if (failTweets)
      return c.json(problem("Service Unavailable", "stand-in told to fail", 503), 503);
    const body = (await c.req.json().catch(() => ({}))) as { text?: string };
    if (typeof body.text !== "string" || body.text.length === 0 || body.text.length > 280) {
      return c.json(problem("Invalid Request", "text must be 1-280 characters", 400), 400);
    }
    // The post is on its author's timeline too (the social poller reads it there).
    const posted = timelines.tweet(t.user, body.text);
    const post = { id: posted.id, text: posted.text };
    p.log.info({ id: post.id }, "tweet posted");
    return c.json({ data: post }, 201);
  });

  registerTimelineRoutes(app, timelines, {
    authorized: (h) => {
      const token = /^Bearer (.+)$/.exec(h ?? "")?.[1] ?? "";
      return (!!p.appToken && eq(token, p.appToken)) || !!bearer(h);
    },
    limits: p.rateLimits,
  });

  // Test controls: who consents next, what was posted, make posting fail.
  app.put("/stand-in/user", async (c) => {
    user = (await c.req.json()) as XUser;
    return c.json({ ok: true });
  });
  app.get("/stand-in/tweets", (c) => c.json({ data: timelines.apiTweets() }));
  // Ends every user token now (as their two hours would): a caller must sign in again.
  app.post("/stand-in/expire-tokens", (c) => {
    for (const [k, t] of tokens) if (t.expires !== Number.MAX_SAFE_INTEGER) tokens.delete(k);
    return c.json({ ok: true });
  });
  app.put("/stand-in/fail-tweets", async (c) => {
    failTweets = ((await c.req.json()) as { fail: boolean }).fail;
    return c.json({ ok: true });
  });
  return app;
}
