import { UpstreamError, upstreamJson } from "../http.ts";
import { X_PATHS, type XPost, type XUser } from "./protocol.ts";

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
      const r = await upstreamJson<{ data?: XUser }>({
        service: "x",
        url: `${base}${X_PATHS.me}?user.fields=profile_image_url`,
        headers: { authorization: `Bearer ${accessToken}` },
        timeoutMs: p.timeoutMs,
      });
      if (!r.data?.id || !r.data.username) {
        throw new UpstreamError("x", "bad_response", "users/me answered without a user");
      }
      return r.data;
    },
    /** Posting is not idempotent at X: no retries, so a timeout never posts twice by us. */
    post: async (accessToken: string, text: string) => {
      const r = await upstreamJson<{ data?: XPost }>({
        service: "x",
        url: `${base}${X_PATHS.tweets}`,
        method: "POST",
        json: { text },
        headers: { authorization: `Bearer ${accessToken}` },
        timeoutMs: p.timeoutMs,
        retries: 0,
      });
      if (!r.data?.id)
        throw new UpstreamError("x", "bad_response", "tweets answered without an id");
      return r.data;
    },
  };
}

export type XClient = ReturnType<typeof createXClient>;
