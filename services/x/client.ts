import { parseUpstream, UpstreamError } from "../http.ts";
import { XAnswers } from "./protocol.ts";
import { ApiResponseError, xSdk, xUpstreamError } from "./sdk.ts";

export type XClientParameters = { apiUrl: string; timeoutMs: number };

/**
 * X API v2 (the real one or the local stand-in; only `apiUrl` differs) through
 * twitter-api-v2: the signed-in user and posting, answers checked with zod. Throws
 * `UpstreamError` (service "x"); a 401 (a missing or expired user token) is `rejected` with
 * status 401, which the sign-in turns into "sign in again".
 *
 * @example
 * const x = createXClient({ apiUrl: "https://api.x.com", timeoutMs: 10_000 });
 * const me = await x.me(accessToken);
 */
export function createXClient(p: XClientParameters) {
  const sdk = (token: string) => xSdk(token, p.apiUrl, p.timeoutMs);
  return {
    me: async (accessToken: string) => {
      const raw = await sdk(accessToken)
        .v2.me({ "user.fields": ["profile_image_url"] })
        .catch((error: unknown) => {
          throw xUpstreamError("users/me", error);
        });
      return parseUpstream("x", XAnswers.me, raw, "users/me").data;
    },
    /** Posting is not idempotent at X: no retries, so a timeout never posts twice by us. */
    post: async (accessToken: string, text: string) => {
      const raw = await sdk(accessToken)
        .v2.tweet(text)
        .catch((error: unknown) => {
          throw xUpstreamError("tweets", error);
        });
      return parseUpstream("x", XAnswers.post, raw, "tweets").data;
    },
  };
}

export type XClient = ReturnType<typeof createXClient>;

export type XReadClientParameters = { apiUrl: string; bearerToken: string; timeoutMs: number };

/**
 * X API v2 reads with the app's bearer token through twitter-api-v2, for the social poller: a
 * user's public metrics and timeline. A 429 throws `XRateLimited` carrying X's reset time
 * (the SDK reads `x-rate-limit-reset`), so the caller waits instead of hammering; other
 * failures are `UpstreamError`s. No retries: the next tick is one.
 *
 * @example
 * const x = createXReadClient({ apiUrl, bearerToken, timeoutMs: 10_000 });
 * const user = await x.userByUsername("agent_one");
 */
export function createXReadClient(p: XReadClientParameters) {
  const sdk = xSdk(p.bearerToken, p.apiUrl, p.timeoutMs);
  const failed = (what: string) => (error: unknown) => {
    if (error instanceof ApiResponseError && error.code === 429) {
      const reset = error.rateLimit?.reset;
      throw new XRateLimited(reset && reset > 0 ? new Date(reset * 1000) : undefined);
    }
    throw xUpstreamError(what, error);
  };
  return {
    userByUsername: async (username: string) => {
      const raw = await sdk.v2
        .userByUsername(username, { "user.fields": ["public_metrics"] })
        .catch(failed("users/by/username"));
      return parseUpstream("x", XAnswers.userByUsername, raw, "users/by/username").data;
    },
    userTweets: async (
      id: string,
      o: { sinceId?: string; paginationToken?: string; maxResults: number },
    ) => {
      const page = await sdk.v2
        .userTimeline(id, {
          since_id: o.sinceId,
          pagination_token: o.paginationToken,
          max_results: o.maxResults,
          "tweet.fields": ["created_at", "referenced_tweets", "public_metrics", "author_id"],
          // The author with its counts: the follower count without a user lookup.
          expansions: ["author_id"],
          "user.fields": ["public_metrics"],
        })
        .catch(failed("users/:id/tweets"));
      return parseUpstream("x", XAnswers.userTweets, page.data, "users/:id/tweets");
    },
  };
}

export type XReadClient = ReturnType<typeof createXReadClient>;

/** X answered 429: wait until `reset` (X's `x-rate-limit-reset`) before asking again. */
export class XRateLimited extends UpstreamError {
  override name = "XRateLimited";
  readonly reset?: Date;
  constructor(reset?: Date) {
    super("x", "unavailable", `rate limited until ${reset?.toISOString() ?? "an unknown time"}`, {
      status: 429,
    });
    this.reset = reset;
  }
}
