import { isDatabaseUnavailable } from "./db/transient.ts";

/** A summary of the errors of one cause that were held back during an interval. */
export type ThrottleSummary = {
  cause: string;
  errors: number;
  intervalMs: number;
  /** How many came from each log message (the site that logged them). */
  sites: Record<string, number>;
};

/**
 * The cause an error is counted under: a database that cannot be reached is one cause per
 * code, whatever query failed; anything else is its code or its message.
 *
 * @example
 * errorCause(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }));
 * // "database unreachable (ECONNREFUSED)"
 */
export function errorCause(error: unknown): string {
  const code = firstCode(error);
  if (isDatabaseUnavailable(error)) return `database unreachable (${code ?? "connection"})`;
  if (code) return code;
  if (error instanceof Error) return `${error.name}: ${error.message}`.slice(0, 200);
  return String(error).slice(0, 200);
}

function firstCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && code) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Lets the first error of each cause through, then holds the others back and hands their
 * count to `summary` once the interval since the last line of that cause is over: at most one
 * line per cause per interval, however fast the errors come.
 *
 * @example
 * const t = errorThrottle({ intervalMs: 30_000, summary: (s) => log.warn(s, `${s.cause}: …`) });
 * if (t.offer(error, "heartbeat failed")) log.warn({ err: error }, "heartbeat failed");
 */
export function errorThrottle(p: {
  intervalMs: number;
  summary: (s: ThrottleSummary) => void;
  now?: () => number;
}) {
  const now = p.now ?? Date.now;
  const causes = new Map<
    string,
    { lastLineAt: number; held: number; sites: Record<string, number>; timer?: NodeJS.Timeout }
  >();
  const flush = (cause: string) => {
    const c = causes.get(cause);
    if (!c) return;
    clearTimeout(c.timer);
    c.timer = undefined;
    if (c.held === 0) {
      // Quiet for a whole interval: the next error of this cause is news again.
      causes.delete(cause);
      return;
    }
    p.summary({ cause, errors: c.held, intervalMs: p.intervalMs, sites: c.sites });
    c.held = 0;
    c.sites = {};
    c.lastLineAt = now();
    c.timer = setTimeout(() => flush(cause), p.intervalMs).unref();
  };
  return {
    /** True when this error is to be logged as usual; false when it was counted instead. */
    offer(error: unknown, site: string): boolean {
      const cause = errorCause(error);
      const c = causes.get(cause);
      if (!c) {
        causes.set(cause, {
          lastLineAt: now(),
          held: 0,
          sites: {},
          timer: setTimeout(() => flush(cause), p.intervalMs).unref(),
        });
        return true;
      }
      c.held++;
      c.sites[site] = (c.sites[site] ?? 0) + 1;
      if (now() - c.lastLineAt >= p.intervalMs) flush(cause);
      return false;
    },
    /** Hands over what is held back now (at shutdown). */
    flushAll(): void {
      for (const cause of [...causes.keys()]) flush(cause);
    },
  };
}
