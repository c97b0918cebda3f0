/** The API's limits, in one place. */
export const API_LIMITS = {
  /** Largest request body accepted (JSON bodies are small; webhooks included). */
  maxBodyBytes: 256 * 1024,
  /** Time given to in-flight requests on shutdown before connections are cut. */
  shutdownGraceMs: 10_000,
  /** Idle keep-alive connections are closed after this long. */
  keepAliveTimeoutMs: 5_000,
  /** A request (headers and body) must arrive within this long. */
  requestTimeoutMs: 30_000,
} as const;

/**
 * Requests per client per fixed window, counted in Postgres so every API instance shares
 * one budget (SPEC.md "Limits": 60 per minute per IP, 600 per minute authenticated).
 */
export const RATE_LIMITS = {
  windowSeconds: 60,
  unauthenticated: 60,
  authenticated: 600,
  /** How often one instance deletes expired windows. */
  sweepEveryMs: 60_000,
} as const;

/** Offset and cursor lists: `limit` default and maximum (SPEC.md: default 20, max 100). */
export const PAGINATION = {
  defaultLimit: 20,
  maxLimit: 100,
  maxOffset: 1_000_000,
} as const;

/** Candles per chart request: one screen of a chart is a few hundred bars. */
export const CHART_LIMITS = {
  defaultLimit: 300,
  maxLimit: 1000,
} as const;

/** Chain reads made while answering a request. */
export const CHAIN_LIMITS = {
  /** `eth_blockNumber` for the indexer status; past this the head is reported as unknown. */
  headTimeoutMs: 2_000,
} as const;

/** `Retry-After` (seconds) sent with 503 `unavailable` while the index is not published yet. */
export const INDEX_NOT_READY_RETRY_SECONDS = 5;
