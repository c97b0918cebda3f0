import { SUPERVISOR_LIMITS } from "./limits.ts";

/** What the supervisor does when a role exits. */
export type RestartDecision =
  | { action: "restart"; delayMs: number; recent: number[] }
  | { action: "give-up"; reason: string };

/**
 * Decides what happens to a role that exited. Up to `maxRestarts` restarts within `restartWindowMs` happen at once. Past that, a role that
 * dies while the service is still starting ends the start (a broken configuration shows at
 * once); a role of a running service is restarted after a back-off that doubles up to
 * `backoffMaxMs`, for as long as it takes: a dependency that is down for minutes (Postgres, the
 * RPC) must not end a stack that runs for days.
 *
 * @example
 * restartDecision({ started: true, restarts: [t1, t2, t3], now });
 * // { action: "restart", delayMs: 2000, recent: [t1, t2, t3, now] }
 */
export function restartDecision(p: {
  /** Every role reported ready once: the service runs. */
  started: boolean;
  /** When this role was restarted before. */
  restarts: number[];
  now: number;
  maxRestarts?: number;
}): RestartDecision {
  const recent = p.restarts.filter((t) => p.now - t < SUPERVISOR_LIMITS.restartWindowMs);
  const max = p.maxRestarts ?? SUPERVISOR_LIMITS.maxRestarts;
  if (recent.length < max) return { action: "restart", delayMs: 0, recent: [...recent, p.now] };
  if (!p.started) {
    return {
      action: "give-up",
      reason: `it exited ${recent.length + 1} times within ${SUPERVISOR_LIMITS.restartWindowMs / 1000} s while starting`,
    };
  }
  const delayMs = Math.min(
    SUPERVISOR_LIMITS.backoffMaxMs,
    SUPERVISOR_LIMITS.backoffFirstMs * 2 ** (recent.length - max),
  );
  return { action: "restart", delayMs, recent: [...recent, p.now] };
}
