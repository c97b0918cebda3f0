import type { Context, MiddlewareHandler } from "hono";
import { clientAddress } from "../../lib/http/client-ip.ts";

export type StandInRateLimit = {
  /** Requests a client may make in any `windowMs`. */
  limit: number;
  windowMs: number;
  /** Which client a request counts against (default: the socket's peer address). */
  key?: (c: Context) => string;
  /** The service's answer past the limit; `retryAfterMs` is when the client's window frees one. */
  refuse: (c: Context, retryAfterMs: number) => Response | Promise<Response>;
  /** Paths never counted (health probes). */
  skip?: (path: string) => boolean;
};

/**
 * A stand-in's per-client rate limit, as a Hono middleware: at most `limit` requests in any
 * `windowMs` per client (a sliding window, the strictest reading of "N a second/minute": a
 * client that passes here passes a fixed window too). A refused request is not counted, so a
 * client that waits for its window is served again. `rateLimited` counts the refusals.
 *
 * @example
 * const rl = standInRateLimit({ limit: 5, windowMs: 1_000, refuse: (c) => c.json({}, 429) });
 * app.use("*", rl.middleware);
 */
export function standInRateLimit(o: StandInRateLimit) {
  const seen = new Map<string, number[]>();
  const state = { rateLimited: 0 };
  const middleware: MiddlewareHandler = async (c, next) => {
    if (c.req.path.startsWith("/_control") || o.skip?.(c.req.path)) return next();
    const key = o.key?.(c) ?? clientAddress(c, 0);
    const now = Date.now();
    const times = (seen.get(key) ?? []).filter((t) => t > now - o.windowMs);
    seen.set(key, times);
    if (times.length >= o.limit) {
      state.rateLimited++;
      return o.refuse(c, (times[0] ?? now) + o.windowMs - now);
    }
    times.push(now);
    return next();
  };
  return { middleware, state };
}
