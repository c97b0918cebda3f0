import type { z } from "zod";
import { parseUpstream, UpstreamError, upstreamJson } from "../http.ts";
import { X_PATHS, XAnswers } from "./protocol.ts";

export type XClientParameters = { apiUrl: string; timeoutMs: number };

/**
 * Typed client of X API v2 (the real one or the local stand-in; only `apiUrl` differs): the
 * signed-in user and posting. Throws `UpstreamError` (service "x") on failure.
 *
 * @example
 * const x = createXClient({ apiUrl: "https://api.x.com", timeoutMs: 10_000 });
 * const me = await x.me(accessToken);
 */
export function createXClient(p: XClientParameters) {
  const base = p.apiUrl.replace(/\/$/, "");
  return {
    me: async (accessToken: string) => {
      const r = await upstreamJson({
        service: "x",
        url: `${base}${X_PATHS.me}?user.fields=profile_image_url`,
        headers: { authorization: `Bearer ${accessToken}` },
        timeoutMs: p.timeoutMs,
        schema: XAnswers.me,
      });
      return r.data;
    },
    /** Posting is not idempotent at X: no retries, so a timeout never posts twice by us. */
    post: async (accessToken: string, text: string) => {
      const r = await upstreamJson({
        service: "x",
        url: `${base}${X_PATHS.tweets}`,
        method: "POST",
        json: { text },
        headers: { authorization: `Bearer ${accessToken}` },
        timeoutMs: p.timeoutMs,
        retries: 0,
        schema: XAnswers.post,
      });
      return r.data;
    },
  };
}

export type XClient = ReturnType<typeof createXClient>;

export type XReadClientParameters = { apiUrl: string; bearerToken: string; timeoutMs: number };

/**
 * X API v2 reads with the app's bearer token, for the social poller: a user's public metrics
 * and timeline. A 429 throws `XRateLimited` carrying X's reset time, so the caller waits
 * instead of hammering; other failures are `UpstreamError`s. No retries: the next tick is one.
 *
 * @example
 * const x = createXReadClient({ apiUrl, bearerToken, timeoutMs: 10_000 });
 * const user = await x.userByUsername("agent_one");
 */
export function createXReadClient(p: XReadClientParameters) {
  const base = p.apiUrl.replace(/\/$/, "");
  const get = async <S extends z.ZodType>(
    path: string,
    query: Record<string, string | undefined>,
    schema: S,
  ): Promise<z.output<S>> => {
    const url = new URL(`${base}${path}`);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, v);
    let res: Response;
    try {
      res = await fetch(url, {
        headers: { authorization: `Bearer ${p.bearerToken}` },
        signal: AbortSignal.timeout(p.timeoutMs),
      });
    } catch (error) {
      throw new UpstreamError("x", "unavailable", `${url.pathname} unreachable`, { cause: error });
    }
    const text = await res.text().catch(() => "");
    if (res.status === 429) {
      const reset = Number(res.headers.get("x-rate-limit-reset"));
      throw new XRateLimited(
        Number.isFinite(reset) && reset > 0 ? new Date(reset * 1000) : undefined,
      );
    }
    if (res.status >= 500) {
      throw new UpstreamError("x", "unavailable", `answered ${res.status}`, { status: res.status });
    }
    if (res.status >= 400) {
      throw new UpstreamError("x", "rejected", `refused with ${res.status}`, {
        status: res.status,
        details: text.slice(0, 300),
      });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new UpstreamError("x", "bad_response", "answered with non-JSON", { cause: error });
    }
    return parseUpstream("x", schema, json, url.pathname, res.status);
  };
  return {
    userByUsername: async (username: string) => {
      const r = await get(
        `${X_PATHS.userByUsername}/${encodeURIComponent(username)}`,
        { "user.fields": "public_metrics" },
        XAnswers.userByUsername,
      );
      return r.data;
    },
    userTweets: (
      id: string,
      o: { sinceId?: string; paginationToken?: string; maxResults: number },
    ) =>
      get(
        X_PATHS.userTweets(id),
        {
          since_id: o.sinceId,
          pagination_token: o.paginationToken,
          max_results: String(o.maxResults),
          "tweet.fields": "created_at,referenced_tweets,public_metrics,author_id",
        },
        XAnswers.userTweets,
      ),
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
