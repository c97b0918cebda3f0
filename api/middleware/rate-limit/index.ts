import type { MiddlewareHandler } from "hono";
import type { Sql } from "../../../lib/db/client.ts";
import { countHit, sweepRateLimits } from "../../../lib/rate-limit.ts";
import type { AppEnv } from "../../env.ts";
import { HttpError } from "../../errors.ts";
import { RATE_LIMITS } from "../../limits.ts";

export type RateLimitOptions = {
  sql: Sql;
  /** Requests per window for anonymous clients (per IP) and authenticated ones (per principal). */
  unauthenticated?: number;
  authenticated?: number;
  windowSeconds?: number;
};

/**
 * Fixed-window rate limit per client through the shared limiter (lib/rate-limit.ts), so every
 * API instance shares one budget per client.
 * Every response carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`
 * (seconds until the window ends); a request over the limit gets 429 `rate_limited` with
 * `Retry-After`. If the database cannot count, the request is served (fail open, logged):
 * a read API should not go down with its limiter.
 *
 * @example
 * app.use(rateLimit({ sql })); // 60/min per IP, 600/min per authenticated principal
 */
export function rateLimit(o: RateLimitOptions): MiddlewareHandler<AppEnv> {
  const window = o.windowSeconds ?? RATE_LIMITS.windowSeconds;
  let lastSweep = 0;
  return async function rateLimitMiddleware(c, next) {
    const principal = c.get("principal");
    const key = principal ? `${principal.kind}:${principal.id}` : `ip:${c.get("clientIp")}`;
    const limit = principal
      ? (o.authenticated ?? RATE_LIMITS.authenticated)
      : (o.unauthenticated ?? RATE_LIMITS.unauthenticated);
    let count: number;
    let reset: number;
    try {
      ({ count, reset } = await countHit(o.sql, key, window));
    } catch (error) {
      c.get("log")?.warn({ err: error }, "rate limit not counted (database error)");
      return next();
    }
    if (Date.now() - lastSweep > RATE_LIMITS.sweepEveryMs) {
      lastSweep = Date.now();
      sweepRateLimits(o.sql, window).catch(() => {});
    }
    const headers = {
      "RateLimit-Limit": String(limit),
      "RateLimit-Remaining": String(Math.max(0, limit - count)),
      "RateLimit-Reset": String(reset),
    };
    if (count > limit) {
      throw new HttpError("rate_limited", {
        message: `more than ${limit} requests in ${window} s; retry after ${reset} s`,
        headers: { ...headers, "Retry-After": String(reset) },
      });
    }
    await next();
    for (const [k, v] of Object.entries(headers)) c.res.headers.set(k, v);
  };
}
