import { createHash } from "node:crypto";
import {
  ArcticFetchError,
  CodeChallengeMethod,
  generateCodeVerifier,
  generateState,
  OAuth2Client,
  OAuth2RequestError,
} from "arctic";
import type { Sql } from "../../lib/db/client.ts";
import { UpstreamError } from "../../services/http.ts";
import type { XClient } from "../../services/x/client.ts";
import { PATRON_SCOPES, X_PATHS } from "../../services/x/protocol.ts";
import { HttpError } from "../errors.ts";
import { SESSION_LIMITS } from "../limits.ts";

/** X's OAuth endpoints and our client registration (the real X or the local stand-in). */
export type XOAuthDeps = {
  sql: Sql;
  clientId: string;
  clientSecret: string;
  /** Web host of the authorize page (https://x.com), API host of the token endpoint. */
  oauthUrl: string;
  apiUrl: string;
  /** Our callback, registered exactly at X. */
  redirectUri: string;
  x: XClient;
  timeoutMs: number;
};

const hashState = (state: string) => createHash("sha256").update(state).digest();

/**
 * Starts a login: a random state and PKCE verifier stored server-side for 10 minutes, and
 * the authorize URL with the S256 challenge (arctic builds it).
 *
 * @example
 * const { url, state } = await startXLogin(deps);
 */
export async function startXLogin(d: XOAuthDeps) {
  const state = generateState();
  const verifier = generateCodeVerifier();
  await d.sql`insert into app.oauth_states (state_hash, code_verifier, expires_at)
    values (${hashState(state)}, ${verifier}, now() + make_interval(secs => ${SESSION_LIMITS.nonceTtlSeconds}))`;
  await d.sql`delete from app.oauth_states where state_hash in (
    select state_hash from app.oauth_states where expires_at < now() limit 100)`;
  const client = new OAuth2Client(d.clientId, d.clientSecret, d.redirectUri);
  const url = client.createAuthorizationURLWithPKCE(
    `${d.oauthUrl.replace(/\/$/, "")}${X_PATHS.authorize}`,
    state,
    CodeChallengeMethod.S256,
    verifier,
    PATRON_SCOPES,
  );
  return { url: url.toString(), state };
}

const refuse = (message: string, cause?: unknown) =>
  new HttpError("not_authenticated", { message, cause });

/** arctic's fetch takes no signal: bound the wait ourselves. */
async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, t]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Completes a login: the state must be the one this browser started with (cookie) and still
 * stored (single use, 10 minutes); the code is exchanged with the stored verifier, the user
 * read from `/2/users/me`, and the patron created or updated.
 *
 * @example
 * const patronId = await finishXLogin(deps, { state, cookieState, code });
 */
export async function finishXLogin(
  d: XOAuthDeps,
  p: { state: string; cookieState: string | undefined; code: string },
): Promise<string> {
  if (!p.cookieState || p.cookieState !== p.state) {
    throw refuse(
      "the login state does not match this browser's; start again at /auth/social/login",
    );
  }
  const [row] = await d.sql<{ code_verifier: string; live: boolean }[]>`
    delete from app.oauth_states where state_hash = ${hashState(p.state)}
    returning code_verifier, expires_at > now() as live`;
  if (!row?.live) throw refuse("the login expired or was already used; start again");
  const client = new OAuth2Client(d.clientId, d.clientSecret, d.redirectUri);
  let accessToken: string;
  try {
    const tokens = await withTimeout(
      client.validateAuthorizationCode(
        `${d.apiUrl.replace(/\/$/, "")}${X_PATHS.token}`,
        p.code,
        row.code_verifier,
      ),
      d.timeoutMs,
    );
    accessToken = tokens.accessToken();
  } catch (error) {
    if (error instanceof OAuth2RequestError) {
      throw refuse(`X refused the code: ${error.description ?? error.code}`, error);
    }
    throw new HttpError("upstream_error", {
      message: `X's token endpoint failed${error instanceof ArcticFetchError ? " (unreachable)" : ""}; retry the login`,
      cause: error,
    });
  }
  const user = await d.x.me(accessToken).catch((error: unknown) => {
    // A token X no longer takes (expired, revoked): the patron signs in again.
    if (error instanceof UpstreamError && error.refusedWith(401)) {
      throw refuse("X no longer accepts this sign-in; sign in again", error);
    }
    throw new HttpError("upstream_error", {
      message: "X's users/me failed; retry the login",
      cause: error,
    });
  });
  const [patron] = await d.sql<{ patron_id: string }[]>`
    insert into app.patrons (x_id, x_handle, display_name, avatar_url)
    values (${user.id}, ${user.username}, ${user.name}, ${user.profile_image_url ?? null})
    on conflict (x_id) do update set x_handle = excluded.x_handle, display_name = excluded.display_name,
      avatar_url = excluded.avatar_url, updated_at = now()
    returning patron_id`;
  return (patron as { patron_id: string }).patron_id;
}
