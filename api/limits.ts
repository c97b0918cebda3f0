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
