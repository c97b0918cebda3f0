import type { MiddlewareHandler } from "hono";
import type { Sql } from "../../../lib/db/client.ts";
import { clientBucket } from "../../../lib/http/client-ip.ts";
import { countRateLimitRefusal } from "../../../lib/metrics/http.ts";
import { countHit, sweepRateLimits } from "../../../lib/rate-limit.ts";
import type { AppEnv } from "../../env.ts";
import { HttpError } from "../../errors.ts";
import { RATE_LIMITS } from "../../limits.ts";

export type RateLimitOptions = {
  sql: Sql;
  /**
   * Requests per window for anonymous clients (per IPv4 address or IPv6 /64) and authenticated
   * ones (per principal);
   * 0 turns that limit off (a deployment whose own gateway limits).
   */
  unauthenticated?: number;
  authenticated?: number;
  /** Requests per window for our own web role (`service:web`); 0 turns it off. */
  service?: number;
  windowSeconds?: number;
};

/** Hits of one key this process reserved in the shared window: numbers `next..end` are ours. */
type Lease = { next: number; end: number; expiresAt: number };

/**
 * Fixed-window rate limit per client through the shared limiter (lib/rate-limit.ts), so every
 * API instance shares one budget per client. An anonymous client is its address's
 * `clientBucket`: an IPv6 client counts as its /64, so rotating addresses inside it buys nothing.
 * Every response carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`
 * (seconds until the window ends); a request over the limit gets 429 `rate_limited` with
 * `Retry-After`. If the database cannot count, the request is served (fail open, logged):
 * a read API should not go down with its limiter.
 *
 * Under a high limit, one upsert per request would cost more than the read it guards (all of a
 * client's requests update one row): a process reserves `limit / RATE_LIMITS.batchDivisor` hits
 * per upsert and hands them out locally. No instance ever admits a hit numbered past the limit,
 * so the shared budget still holds; what a process reserved and did not use is lost for the
 * window (at most 1% of the limit per process). Limits under the divisor reserve one at a time,
 * exactly as before. A client known to be over the limit is refused without a database trip.
 *
 * @example
 * app.use(rateLimit({ sql })); // 60/min per IP, 600/min per authenticated principal
 */
export function rateLimit(o: RateLimitOptions): MiddlewareHandler<AppEnv> {
  const window = o.windowSeconds ?? RATE_LIMITS.windowSeconds;
  const leases = new Map<string, Lease>();
  const pending = new Map<string, Promise<void>>();
  let lastSweep = 0;

  /** This request's number in the key's window, reserving more hits when ours ran out. */
  async function take(key: string, limit: number): Promise<{ count: number; resetMs: number }> {
    for (;;) {
      const now = Date.now();
      const l = leases.get(key);
      if (l && l.expiresAt > now) {
        if (l.next <= l.end) return { count: l.next++, resetMs: l.expiresAt - now };
        if (l.end >= limit) return { count: l.end + 1, resetMs: l.expiresAt - now };
      }
      const inFlight = pending.get(key);
      if (inFlight) {
        await inFlight;
        continue;
      }
      const batch = Math.max(1, Math.floor(limit / RATE_LIMITS.batchDivisor));
      const reserve = countHit(o.sql, key, window, batch).then(({ count, resetMs }) => {
        leases.set(key, { next: count - batch + 1, end: count, expiresAt: Date.now() + resetMs });
      });
      pending.set(key, reserve);
      try {
        await reserve;
      } finally {
        pending.delete(key);
      }
    }
  }

  return async function rateLimitMiddleware(c, next) {
    const principal = c.get("principal");
    const key = principal
      ? `${principal.kind}:${principal.id}`
      : `ip:${clientBucket(c.get("clientIp"))}`;
    const limit = !principal
      ? (o.unauthenticated ?? RATE_LIMITS.unauthenticated)
      : principal.kind === "service"
        ? (o.service ?? RATE_LIMITS.service)
        : (o.authenticated ?? RATE_LIMITS.authenticated);
    if (limit === 0) return next();
    let count: number;
    let reset: number;
    try {
      const hit = await take(key, limit);
      count = hit.count;
      reset = Math.max(1, Math.ceil(hit.resetMs / 1000));
    } catch (error) {
      c.get("log")?.warn({ err: error }, "rate limit not counted (database error)");
      return next();
    }
    if (Date.now() - lastSweep > RATE_LIMITS.sweepEveryMs) {
      lastSweep = Date.now();
      for (const [k, l] of leases) if (l.expiresAt <= lastSweep) leases.delete(k);
      sweepRateLimits(o.sql, window).catch(() => {});
    }
    const headers = {
      "RateLimit-Limit": String(limit),
      "RateLimit-Remaining": String(Math.max(0, limit - count)),
      "RateLimit-Reset": String(reset),
    };
    if (count > limit) {
      countRateLimitRefusal(principal?.kind ?? "ip");
      throw new HttpError("rate_limited", {
        message: `more than ${limit} requests in ${window} s; retry after ${reset} s`,
        headers: { ...headers, "Retry-After": String(reset) },
      });
    }
    await next();
    for (const [k, v] of Object.entries(headers)) c.res.headers.set(k, v);
  };
}
