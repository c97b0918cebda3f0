/** Every limit and timeout of the external services' clients, in one place (the stand-ins' own
 * are devnet/limits.ts STAND_IN_LIMITS; the steward stand-in's timing, which a launch step
 * waits on too, stays here). */

/** Retry and timeout defaults of every call to an external service. */
export const UPSTREAM_LIMITS = {
  /** Attempts after the first one, for network errors, timeouts, 429 and 5xx only. */
  retries: 2,
  /** First backoff; doubles per attempt (200 ms, 400 ms). */
  backoffMs: 200,
  /**
   * A 429's `Retry-After` is waited out before the next attempt up to this long; a longer one
   * fails the call at once (retryable, its wait in the error's details): a caller's request is
   * not held a minute for one service's window.
   */
  maxRetryAfterMs: 10_000,
  /** Mismatched fields of a malformed answer named in the error's details. */
  issuesInDetails: 3,
} as const;

/** The perps venue (Hyperliquid) client: one timeout per request kind. */
export const HYPERLIQUID_LIMITS = {
  /** `POST /info` reads: small answers; a slow one is retried next poll. */
  infoTimeoutMs: 5_000,
  /** `POST /exchange`: no retries (an order is not idempotent), a longer wait. */
  exchangeTimeoutMs: 10_000,
} as const;

/** The steward stand-in's own timing. */
export const STEWARD_LIMITS = {
  /** A webhook to our API must answer within this long, or it is retried from the outbox. */
  webhookTimeoutMs: 5_000,
  /** How often undelivered webhooks are sent again. */
  outboxRetryMs: 2_000,
  /** A launch step polls a transaction Steward holds for manual approval this long... */
  approvalWaitMs: 30_000,
  /** ...this often; after the wait the step fails and its retry polls again (same key). */
  approvalPollMs: 1_000,
} as const;
