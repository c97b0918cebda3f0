import { OUTBOUND_LIMITS } from "../../limits.ts";

/**
 * NO_WAIT_FOR_FLUSH: the dispatcher's own transactions (fan-out, claim, record) commit with
 * `synchronous_commit = off`, not waiting for the WAL flush: a database crash can only undo
 * the last few of them, and undoing any of them leads to a repeat (a claim or a success
 * forgotten: the delivery is sent again with the same webhook-id; a fan-out forgotten: its
 * cursor and deliveries go together and are redone), never to a lost delivery. The events
 * themselves are committed by their writers with the default, durable commit.
 */
export const NO_WAIT_FOR_FLUSH = true;

/** The Postgres channel the API notifies when it queues a test or a redelivery. */
export const OUTBOUND_CHANNEL = "outbound_deliveries";

/** Durations of the dispatcher, scaled in test mode so a 24 h schedule runs in seconds. */
export type OutboundTiming = {
  scheduleMs: number[];
  failingWindowMs: number;
  requestTimeoutMs: number;
  leaseMs: number;
};

/**
 * The timing at `scale` (1 in production; LAUNCHPAD_ENV=test may set
 * OUTBOUND_WEBHOOK_TIME_SCALE). The request timeout never drops below 1 s and the lease
 * always outlasts it, so a scaled test still tells a slow receiver from a dead worker.
 *
 * @example
 * outboundTiming(0.001).scheduleMs[1]; // 5
 */
export function outboundTiming(scale = 1): OutboundTiming {
  const requestTimeoutMs = Math.max(1_000, Math.round(OUTBOUND_LIMITS.requestTimeoutMs * scale));
  return {
    scheduleMs: OUTBOUND_LIMITS.scheduleMs.map((ms) => Math.round(ms * scale)),
    failingWindowMs: Math.round(OUTBOUND_LIMITS.failingWindowMs * scale),
    requestTimeoutMs,
    leaseMs: requestTimeoutMs + Math.max(500, Math.round(5_000 * scale)),
  };
}
