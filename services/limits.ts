/** Every limit and timeout of the external services' clients and stand-ins, in one place. */

/** Retry and timeout defaults of every call to an external service. */
export const UPSTREAM_LIMITS = {
  /** Attempts after the first one, for network errors, timeouts, 429 and 5xx only. */
  retries: 2,
  /** First backoff; doubles per attempt (200 ms, 400 ms). */
  backoffMs: 200,
  /** Mismatched fields of a malformed answer named in the error's details. */
  issuesInDetails: 3,
} as const;

/** Limits of the local stand-ins (they mirror the real services'). */
export const STAND_IN_LIMITS = {
  /** Largest image the launchpad API stand-in accepts (four.meme: 5 MB). */
  launchpadMaxImageBytes: 5 * 1024 * 1024,
  /** The perps venue stand-in's marks take a random-walk step this often, of up to ±stepBps. */
  hyperliquidWalkEveryMs: 1_000,
  hyperliquidWalkStepBps: 10,
  /** `/info` weight a client may spend per minute (the venue's 1200, PROTOCOLS.md 1.2). */
  hyperliquidWeightPerMinute: 1_200,
  /** `/info` requests the stand-in remembers (time, type, weight, status) for tests. */
  hyperliquidRequestLog: 50_000,
  /** The venue stand-in scans the local Arbitrum chain for deposits to its bridge this often. */
  hyperliquidBridgeEveryMs: 1_000,
  /** Blocks per `eth_getLogs` of that scan. */
  hyperliquidBridgeMaxBlocks: 2_000,
  /** A reorg under the scan's cursor rescans this many blocks (credits are deduplicated). */
  hyperliquidBridgeRescanBlocks: 64,
  /** Bridge2's minimum deposit: less is not credited, and lost (PROTOCOLS.md 1.5). */
  hyperliquidMinDepositUsdc: 5,
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
