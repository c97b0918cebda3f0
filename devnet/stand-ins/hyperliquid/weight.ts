import { STAND_IN_LIMITS } from "../../limits.ts";

/** One `/info` request as the meter saw it. */
export type Metered = { at: number; type: string; weight: number; status: number };

/**
 * The venue's rate limit as the stand-in keeps it (PROTOCOLS.md 1.2): weight per window for
 * every client together; a window opens at the first request after the last one closed. A
 * request over the limit is answered 429 (and its weight still counts). The extra weight of
 * an answer's length is booked after it. Every request is logged (the newest
 * `hyperliquidRequestLog`) so a test can check any window after the fact.
 */
export class WeightMeter {
  private window = { start: 0, used: 0 };
  readonly log: Metered[] = [];
  rateLimited = 0;
  readonly limit: number;
  readonly windowMs: number;
  constructor(limit: number, windowMs: number) {
    this.limit = limit;
    this.windowMs = windowMs;
  }

  /** Books a request's weight; false when it is over the limit (answer 429). */
  admit(type: string, weight: number, now = Date.now()): boolean {
    if (now - this.window.start >= this.windowMs) this.window = { start: now, used: 0 };
    this.window.used += weight;
    const ok = this.window.used <= this.limit;
    if (!ok) this.rateLimited++;
    this.record({ at: now, type, weight, status: ok ? 200 : 429 });
    return ok;
  }

  /** Books extra weight after an answer (its length). */
  extra(type: string, weight: number, now = Date.now()): void {
    if (weight <= 0) return;
    this.window.used += weight;
    this.record({ at: now, type: `${type}:items`, weight, status: 200 });
  }

  private record(m: Metered) {
    this.log.push(m);
    if (this.log.length > STAND_IN_LIMITS.hyperliquidRequestLog) this.log.shift();
  }

  /** The meter now: its window and what was spent in it. */
  snapshot() {
    return {
      limit: this.limit,
      windowMs: this.windowMs,
      windowStart: this.window.start,
      used: this.window.used,
      rateLimited: this.rateLimited,
    };
  }
}
