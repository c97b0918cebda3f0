import { STAND_IN_LIMITS } from "../../limits.ts";

/** One `/info` request as the meter saw it. */
export type Metered = { at: number; type: string; weight: number; status: number };

/**
 * The venue's rate limit as the stand-in keeps it ("Rate limits and user limits",
 * hyperliquid.gitbook.io/hyperliquid-docs/for-developers/api/rate-limits: 1200 weight a minute
 * per IP, every REST request): weight per window for every client together. The docs do not say
 * how the minute is counted, so the meter takes the strictest reading, a sliding window: any
 * `windowMs` holds at most `limit`, so a client that passes here passes a fixed minute too. A
 * request over the limit is answered 429 and its weight still counts (the docs are silent; the
 * stricter reading again). The extra weight of an answer's length is booked after it. Every
 * request is logged (the newest `hyperliquidRequestLog`) so a test can check any window.
 */
export class WeightMeter {
  /** Weight booked in the current sliding window, oldest first. */
  private booked: { at: number; weight: number }[] = [];
  private used = 0;
  readonly log: Metered[] = [];
  rateLimited = 0;
  readonly limit: number;
  readonly windowMs: number;
  constructor(limit: number, windowMs: number) {
    this.limit = limit;
    this.windowMs = windowMs;
  }

  private expire(now: number) {
    while (this.booked.length > 0 && (this.booked[0]?.at ?? now) <= now - this.windowMs) {
      this.used -= this.booked.shift()?.weight ?? 0;
    }
  }

  private book(weight: number, now: number) {
    this.booked.push({ at: now, weight });
    this.used += weight;
  }

  /** Books a request's weight; false when it is over the limit (answer 429). */
  admit(type: string, weight: number, now = Date.now()): boolean {
    this.expire(now);
    this.book(weight, now);
    const ok = this.used <= this.limit;
    if (!ok) this.rateLimited++;
    this.record({ at: now, type, weight, status: ok ? 200 : 429 });
    return ok;
  }

  /** Books extra weight after an answer (its length). */
  extra(type: string, weight: number, now = Date.now()): void {
    if (weight <= 0) return;
    this.expire(now);
    this.book(weight, now);
    this.record({ at: now, type: `${type}:items`, weight, status: 200 });
  }

  private record(m: Metered) {
    this.log.push(m);
    if (this.log.length > STAND_IN_LIMITS.hyperliquidRequestLog) this.log.shift();
  }

  /** The meter now: the window (the last `windowMs`) and what was spent in it. */
  snapshot(now = Date.now()) {
    this.expire(now);
    return {
      limit: this.limit,
      windowMs: this.windowMs,
      windowStart: now - this.windowMs,
      used: this.used,
      rateLimited: this.rateLimited,
    };
  }
}
