import type { Context, MiddlewareHandler } from "hono";
import { clientAddress, clientBucket } from "../lib/http/client-ip.ts";
import { WEB_LIMITS } from "./limits.ts";

export type VisitorLimitOptions = {
  /** Page views per minute one visitor address may get; 0 turns the limit off. */
  perMinute: number;
  /** Proxies in front of the web app whose `X-Forwarded-For` entries are trusted. */
  trustProxy: number;
  /** The answer past the limit (the web app's "too many requests" page). */
  limited: (c: Context, retryAfterSeconds: number) => Response | Promise<Response>;
};

/**
 * Page views per visitor (an IPv4 address, an IPv6 client's /64) in fixed one-minute windows,
 * counted in this process. The web
 * app reads the API under one service budget for all its visitors, so it answers for each of
 * them itself: one visitor cannot spend the budget everybody's pages are served from.
 * Several web processes each count on their own (a visitor gets at most N times the limit).
 *
 * @example
 * app.use(visitorLimit({ perMinute: 120, trustProxy: 0, limited: (c, s) => c.text("slow down", 429) }));
 */
export function visitorLimit(o: VisitorLimitOptions): MiddlewareHandler {
  let windowStart = 0;
  const counts = new Map<string, number>();
  return async function visitorLimitMiddleware(c, next) {
    if (o.perMinute === 0) return next();
    const now = Date.now();
    if (now - windowStart >= 60_000 || counts.size >= WEB_LIMITS.visitorsTracked) {
      windowStart = now - (now % 60_000);
      counts.clear();
    }
    const ip = clientBucket(clientAddress(c, o.trustProxy));
    const n = (counts.get(ip) ?? 0) + 1;
    counts.set(ip, n);
    if (n > o.perMinute) {
      const retryAfter = Math.max(1, Math.ceil((windowStart + 60_000 - now) / 1000));
      return o.limited(c, retryAfter);
    }
    return next();
  };
}
