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
 * one budget (api/AGENT.md "Limits": 60 per minute per IP, 600 per minute authenticated).
 */
export const RATE_LIMITS = {
  windowSeconds: 60,
  unauthenticated: 60,
  authenticated: 600,
  /** The web role's server-side reads (one budget for all its visitors; it limits each). */
  service: 6_000,
  /** How often one instance deletes expired windows. */
  sweepEveryMs: 60_000,
  /** A process reserves limit / this many hits per upsert (1 below it): see the middleware. */
  batchDivisor: 100,
} as const;

/** The launch endpoint (api/AGENT.md "Limits": 10 launch requests per minute per key). */
export const LAUNCH_API_LIMITS = {
  perKeyPerMinute: 10,
  windowSeconds: 60,
  /** How often a waiting request looks at the saga (one indexed row read). */
  pollMs: 50,
} as const;

/** Offset and cursor lists: `limit` default and maximum (api/AGENT.md: default 20, max 100). */
export const PAGINATION = {
  defaultLimit: 20,
  maxLimit: 100,
  maxOffset: 1_000_000,
  /** Longer than any cursor the API issues. */
  maxCursorLength: 200,
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
  /**
   * The status route's head is read at most this often per API process and shared by every
   * caller: about two BSC blocks, so a reported lag may be two blocks short.
   */
  headMaxAgeMs: 1_000,
} as const;

/** `GET /health?deep=true`. */
export const HEALTH_LIMITS = {
  /**
   * One deep check's answer serves every caller for this long after it finished: however many
   * ask, a process spends one RPC read and one set of queries per this interval.
   */
  deepCacheMs: 2_000,
} as const;

/** `Retry-After` (seconds) sent with 503 `unavailable` while the index is not published yet. */
export const INDEX_NOT_READY_RETRY_SECONDS = 5;

/** `Retry-After` (seconds) of any other 503: the database restarting, a dependency down. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

/** `Retry-After` (seconds) of the launch endpoint's 502/503: the first retry api/AGENT.md gives, after 1 s. */
export const LAUNCH_RETRY_AFTER_SECONDS = 1;

/** A view read that lost a lock conflict with the restarting indexer (api/views.ts). */
export const VIEW_READ_LIMITS = {
  /** Attempts after the first; then 503 with Retry-After. */
  lockConflictRetries: 2,
  /** First pause; doubles per attempt (100 ms, 200 ms). */
  lockConflictBackoffMs: 100,
} as const;

/** Market data: chart caching, search lengths, the UDF feed. */
export const MARKET_LIMITS = {
  /** `Cache-Control: max-age` of chart answers whose range closed before the indexed head. */
  closedChartMaxAgeSeconds: 86_400,
  /** ... and of answers that include the open bucket. */
  openChartMaxAgeSeconds: 5,
  /** Longest `q` of `/tokens` and `query` of `/udf/search`. */
  maxSearchLength: 64,
  /** Longest UDF symbol: an address plus `/USD`, with room. */
  maxSymbolLength: 80,
  /** `/udf/search` results: default and maximum. */
  udfSearchDefault: 30,
  udfSearchMax: 100,
} as const;

/** Limits of sign-in and sessions, in one place. */
export const SESSION_LIMITS = {
  /** A SIWE nonce (and an OAuth state) is good for 10 minutes. */
  nonceTtlSeconds: 600,
  /** A session cookie lives 7 days. */
  sessionTtlSeconds: 7 * 24 * 3600,
  /**
   * Expired sessions deleted at each sign-in: more than one, so the table shrinks back after a
   * burst of sign-ins, and few enough that a sign-in never waits on a long delete.
   */
  expiredDropBatch: 100,
  /** Tolerated difference between the signer's clock and ours. */
  clockSkewSeconds: 60,
  /** Longest SIWE message and signature accepted (a Safe's 6492 wrapper is the longest). */
  maxMessageChars: 4096,
  maxSignatureChars: 20_000,
  /** Deposit launches one session may create per hour. */
  launchesPerHour: 5,
} as const;

/** Limits of deposit-launch creation, in one place. */
export const DEPOSIT_LAUNCH_LIMITS = {
  /** A launch must stay open at least this long: the transaction and first deposits need time. */
  minOpenSeconds: 300,
  /** How long a request waits for the createLaunch receipt before answering 503. */
  receiptTimeoutMs: 60_000,
  /** How often it looks for the receipt meanwhile (a BSC block is 3 s, the devnet's 1 s). */
  receiptPollMs: 500,
} as const;

/** Advisory-lock namespaces (first key of `pg_advisory_xact_lock(ns, hashtext(...))`). */
export const LOCK_NAMESPACES = {
  /** One deposit-launch creation at a time per wallet (budget count and insert). */
  depositCreator: 7_400_015,
} as const;

/** The WebSocket bridge (`/ws`, api/ws/). Per API process; docs/websocket.md explains each. */
export const WS_LIMITS = {
  /** Largest client message; a bigger frame closes the socket (1009, by the `ws` package). */
  maxMessageBytes: 4 * 1024,
  /** Channels one socket may be subscribed to at once. */
  maxSubscriptionsPerSocket: 100,
  /** Open sockets per client IP on one API process. */
  maxSocketsPerIp: 50,
  /** Bytes queued for a socket before it is cut as a slow consumer (1013). */
  maxBufferedBytes: 1024 * 1024,
  /** Bad messages (malformed, unknown channel, limit hit) per minute before a 1008 close. */
  maxBadMessagesPerMinute: 20,
  /** Messages a `since` resume may replay; further back, page the REST endpoint instead. */
  maxReplay: 1_000,
  /** The server pings every socket this often and drops one that did not pong since. */
  heartbeatMs: 30_000,
  /** Tailers read the views and `agent_events` on every notification and at least this often. */
  pollMs: 1_000,
  /** Rows one tailer read hands on at most (the next read continues). */
  tailBatch: 1_000,
  /** Sent chain items kept to notice a reorg that removes them (Ponder reverts up to finality). */
  reorgWindowBlocks: 128,
  /** Time a closing socket gets for the close handshake before it is cut. */
  closeGraceMs: 2_000,
} as const;

/** Agent orders through the signer. */
export const ORDER_LIMITS = {
  /** A spot swap's router deadline, from when the order is built. */
  swapDeadlineSeconds: 120,
  /** Waiting for an approval to be mined before the swap that needs it. */
  receiptTimeoutMs: 30_000,
  /** A perps market order is an IOC limit this far through the mark (the SDKs' 5 %). */
  perpsSlippage: 0.05,
} as const;

/** Chain-derived reads: the indexed-block tracker and the per-process read cache. */
export const READ_CACHE_LIMITS = {
  /** The indexed checkpoint is read again when a request finds it older than this. */
  indexedBlockMaxAgeMs: 50,
  /** Answers kept per process (each a serialised body); the oldest go first. */
  maxEntries: 5_000,
  /** Bodies larger than this are not cached (a 1000-candle chart is about 250 KB). */
  maxBodyBytes: 512 * 1024,
  /** All cached bodies of one process together. */
  maxTotalBytes: 64 * 1024 * 1024,
  /**
   * `/tokens?sort=volume24h|trending` may use the ranking of an older block while a new one is
   * computed (one computation at a time per sort and process); past this age a request waits.
   */
  rankingMaxStaleMs: 10_000,
  /** ... and a request waits this long for the new ranking before taking the older one. */
  rankingWaitMs: 200,
  /** `work_mem` of the ranking's transaction: its per-token aggregate fits without spilling. */
  rankingWorkMem: "64MB",
  /**
   * Longest a poller-fed answer (perps, social) is served from the per-process cache without a
   * new poll: each also ends when its window's oldest point leaves it; a PnL answer's `from`
   * (the window's start when it was computed) is at most this old.
   */
  polledMaxAgeMs: 60_000,
  /**
   * The perps answers of one process together: a 30-day PnL series is about 64 KB (720 hourly
   * points), so 1,000 agents' month and week series with their gzipped copies take about 90 MB.
   */
  perpsMaxTotalBytes: 128 * 1024 * 1024,
  /** Cached answers at least this large go gzipped to clients that accept it. */
  gzipMinBytes: 1024,
  /**
   * zlib level of those, compressed once per answer: 1 turns a 60 KB chart into 9.5 KB in about
   * 0.3 ms; 6 saves another 1.3 KB for about 5 ms.
   */
  gzipLevel: 1,
} as const;

/** Holders' dividends (api/dividends/): one wallet's answer reads at most this many tokens' claimableFee (one Multicall3 call). */
export const DIVIDEND_LIMITS = {
  maxTokensPerWallet: 100,
} as const;
