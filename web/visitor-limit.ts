import type { Context, MiddlewareHandler } from "hono";
import { clientAddress, clientBucket } from "../lib/http/client-ip.ts";
import { WEB_LIMITS } from "./limits.ts";

export type VisitorLimitOptions = {
  /** Page views per minute one visitor may get; 0 turns the limit off. */
  perMinute: number;
  /** Proxies in front of the web app whose `X-Forwarded-For` entries are trusted. */
  trustProxy: number;
  /** The answer past the limit (the web app's "too many requests" page). */
  limited: (c: Context, retryAfterSeconds: number) => Response | Promise<Response>;
};

/**
 * Page views per visitor in fixed one-minute windows, counted in this process. A visitor is an
 * IPv4 address or an IPv6 client's /64 (`clientBucket`). The web app reads the API under one
 * service budget for all its visitors, so it answers for each of them itself: one visitor
 * cannot spend the budget everybody's pages are served from. Several web processes each count
 * on their own (a visitor gets at most N times the limit).
 *
 * At most `WEB_LIMITS.visitorsTracked` visitors are counted; past that the least recently seen
 * one is forgotten. A visitor over its limit is seen on every request, so a flood of new
 * addresses pushes out the quiet visitors first and never resets the budget of the one
 * hammering the site.
 *
 * @example
 * app.use(visitorLimit({ perMinute: 120, trustProxy: 0, limited: (c, s) => c.text("slow down", 429) }));
 */
export function visitorLimit(o: VisitorLimitOptions): MiddlewareHandler {
  let windowStart = 0;
  // Insertion order is recency: a visitor seen again is moved to the end, the first is the
  // least recently seen (a Map keeps that order, so eviction is O(1)).
  const counts = new Map<string, number>();
  return async function visitorLimitMiddleware(c, next) {
    if (o.perMinute === 0) return next();
    const now = Date.now();
    if (now - windowStart >= 60_000) {
      windowStart = now - (now % 60_000);
      counts.clear();
    }
    const visitor = clientBucket(clientAddress(c, o.trustProxy));
    const n = (counts.get(visitor) ?? 0) + 1;
    counts.delete(visitor);
    if (counts.size >= WEB_LIMITS.visitorsTracked) {
      const oldest = counts.keys().next();
      if (!oldest.done) counts.delete(oldest.value);
    }
    counts.set(visitor, n);
    if (n > o.perMinute) {
      const retryAfter = Math.max(1, Math.ceil((windowStart + 60_000 - now) / 1000));
      return o.limited(c, retryAfter);
    }
    return next();
  };
}
