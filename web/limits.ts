/** Every limit, timeout and interval of the web role, in one place. */
export const WEB_LIMITS = {
  /** A page's server-side call to the API gives up after this (the page then says so). */
  apiTimeoutMs: 5_000,
  /** How long an API answer is reused for the next page view of the same data. */
  apiCacheMs: 1_000,
  /** Paths kept at most (the cache is emptied when full: it is a burst absorber, not a store). */
  apiCacheEntries: 2_000,
  /** `Retry-After` and the catching-up page's reload interval while the API answers 503. */
  catchingUpRetrySeconds: 5,
  /** Visitors counted per minute at most; past it the least recently seen is forgotten. */
  visitorsTracked: 100_000,
  /** Rows per page on the home page and the launch list. */
  pageSize: 20,
  /** Trades and feed items a page shows at first and keeps as live ones arrive. */
  tapeSize: 50,
  /** Trades the home page's ticker shows at first and keeps as live ones arrive. */
  tickerSize: 12,
  /** The home page's platform totals are re-read at most this often while trades arrive. */
  statsRefreshMs: 3_000,
  /** Depositors listed on a launch page. */
  depositorsShown: 100,
  /** Time in-flight requests get on shutdown before their connections are cut. */
  shutdownGraceMs: 5_000,
  keepAliveTimeoutMs: 5_000,
  requestTimeoutMs: 30_000,
  /** Candles the chart loads per interval (the API's chart maximum). */
  chartCandles: 1_000,
  /** WebSocket reconnect backoff: first delay and ceiling (AGENT.md: 1 s, 2 s, 4 s, up to 30 s). */
  wsBackoffMs: 1_000,
  wsBackoffMaxMs: 30_000,
} as const;
