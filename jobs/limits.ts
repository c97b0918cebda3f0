/**
 * Every limit, timeout, interval and batch size of the worker role (pg-boss, the launch
 * saga, the agent event jobs), in one place. The API reaches the queue only through jobs/launch/producer.ts.
 */

/** Launch sagas run at once per worker (LAUNCH_LIMITS.concurrency; the pool is sized on it). */
const SAGA_CONCURRENCY = 8;

/** Limits of the job system. */
export const JOB_LIMITS = {
  /** pg-boss keeps its tables in this schema, apart from the app's and Ponder's. */
  schema: "jobs",
  /** On shutdown, running jobs get this long to finish before the worker exits. */
  stopTimeoutMs: 15_000,
  /** Connections pg-boss may hold in the worker. */
  maxConnections: 5,
  /**
   * The worker's own pool (its jobs' queries; pg-boss has its own). A launch saga runs two lanes
   * at once (three in its second stage), each a query at a time, and a relayer nonce hold takes
   * two (its lock's transaction and the save); at 6, five concurrent sagas queued for a
   * connection before their first transactions went out (a single UPDATE waited up to 130 ms)
   * and a quarter to a half of them missed the launch's first block (`bench:launch` at
   * concurrency 5). Not re-measured for the third lane: 28 against 20 at concurrency 5 told
   * nothing apart from the loaded machine's noise.
   */
  workerConnections: 2 * SAGA_CONCURRENCY + 4,
  /** Connections the API's producer may hold (it only sends). */
  producerConnections: 2,
  /** How often a worker asks pg-boss for new jobs, in seconds. */
  pollingIntervalSeconds: 0.5,
  /**
   * The same on queues whose sends NOTIFY the worker (the launch saga, the pollers, the inbox
   * drains): a backstop only, for a job that became due later. pg-boss fetches on each of its
   * listener's reconnects. Per local worker: the pollers run four each, the saga eight.
   */
  notifyPollingIntervalSeconds: 5,
} as const;

/** Limits of the launch saga. */
export const LAUNCH_LIMITS = {
  /** pg-boss queue of saga runs. */
  queue: "launch-saga",
  /** A worker holds a saga this long per heartbeat; a crashed worker's lease lapses after it. */
  leaseMs: 5_000,
  heartbeatMs: 1_500,
  /** How often a worker looks for sagas whose lease lapsed (a crash) and resumes them. */
  sweepEveryMs: 1_000,
  /** A lapsed saga is picked up once it has been idle this long (seconds)... */
  orphanIdleSeconds: 2,
  /** ...and at most this many per sweep. */
  orphanBatch: 50,
  /** Every this many sweeps, agents' stored status follows the index (pending -> active -> graduated). */
  statusSyncEverySweeps: 5,
  /** Sagas run at once per worker. */
  concurrency: SAGA_CONCURRENCY,
  /** A transaction's receipt must arrive within this long. */
  receiptTimeoutMs: 60_000,
  /** How often the saga asks for a receipt it waits on (a tenth of a devnet block). */
  receiptPollMs: 100,
  /** A relayer transaction dropped (its nonce used by another) is signed anew at most this often. */
  relayerResends: 2,
  /**
   * Gas units the launch preview budgets for the ServiceRegistry entry (about 150k measured by
   * test/launch/launch.suite.ts, with headroom): it cannot be estimated before the token exists.
   */
  registerGasUnits: 200_000n,
  /**
   * Gas units the agent wallet is funded for (identity registration and createToken), with the
   * launch fee: at its preparation, before the request (jobs/launch/prepare.ts), or at the request.
   */
  fundGasUnits: 6_000_000n,
  /**
   * Gas units of the wallet's identity registration (about 250k measured, with headroom): a
   * wallet holding this much gas money registers in its launch's first block.
   */
  identityGasUnits: 400_000n,
  /**
   * The launch preview prices a first buy on the curve of the newest BNB-raise token among this
   * many of TokenManager2's latest (jobs/launch/first-buy.ts).
   */
  freshCurveLookback: 20n,
  /**
   * A prepared wallet gets the launch fee and this many times the launch's gas at today's price
   * (price drift); it is topped up at the request only below the bare need.
   */
  prepareGasPriceHeadroom: 2n,
  /** Agents whose wallet the worker prepares per sweep (the oldest unprepared first). */
  prepareBatch: 4,
  /**
   * A worker holds a wallet's preparation this long (seconds) per heartbeat (`heartbeatMs`), as
   * it holds a saga; a crashed worker's preparation is resumed by another after it.
   */
  prepareLeaseSeconds: 5,
  /**
   * How long a four.meme login (access token) is used after it was obtained. four.meme publishes
   * no lifetime (its create guide, docs/upstreams.md); third-party clients assume a day or more.
   * An hour, well under that, bounds what a kept token can do; a refusal of a kept one logs in
   * anew anyway (jobs/launch/fourmeme.ts).
   */
  fourmemeSessionTtlMs: 3_600_000,
  /**
   * An Idempotency-Key is remembered this long, then forgotten (Stripe keeps keys 24 hours): a
   * retry after it is a new request, which one-launch-per-agent answers 409, never a second launch.
   */
  idempotencyKeepHours: 24,
  /** pg-boss queue and cron of the hourly pruning of forgotten keys (one run across workers). */
  idempotencyPruneQueue: "launch-idempotency-prune",
  idempotencyPruneCron: "23 * * * *",
  /** Rows deleted per statement, so a backlog never holds a long lock. */
  idempotencyPruneBatch: 5_000,
} as const;

/** The NAV snapshot job (its valuation limits: DASHBOARD_LIMITS in lib/limits.ts). */
export const NAV_JOB = {
  queue: "nav-snapshot",
  /** Every minute: a run with nothing to take costs one query per agent. */
  cron: "* * * * *",
  pollSeconds: 2,
  /** A run lasting longer is given up (a backfill of 168 hours takes well under a minute). */
  expireSeconds: 600,
} as const;

/** Limits of the agent event jobs (inbox consumer, chain projector). */
export const EVENT_JOB_LIMITS = {
  /** pg-boss queue of inbox drains ('short': one queued at most, any number running). */
  drainQueue: "events-inbox-drain",
  /** Inbox rows per transaction. */
  batchSize: 500,
  /** A drain job returns after this long (and asks for another) so it never looks stuck. */
  drainBudgetMs: 5_000,
  /** Drain jobs one worker runs at once; SKIP LOCKED keeps their batches apart. */
  drainConcurrency: 2,
  /** A killed worker's drain job is retried by pg-boss after this; the inbox never waits on it. */
  drainExpireSeconds: 60,
  /** Failed attempts before an inbox row goes to the dead letter (failed_at). */
  maxAttempts: 3,
  /**
   * Safety net besides LISTEN (which also kicks on every reconnect): a missed notification, or a
   * row a drain left to retry, still drains within this. Each kick is a job sent; at 1 s an idle
   * worker sent one a second.
   */
  kickEveryMs: 5_000,
  /**
   * Chain projector: a pass on each of Ponder's commits that changed a table (its NOTIFY) and at
   * least this often, so a missed notification only delays. At 500 ms without the NOTIFY an idle
   * worker ran four of its passes a second (two chains).
   */
  projectEveryMs: 5_000,
  /**
   * Blocks below the index head that the projector re-checks on every pass (reorg window), per
   * chain: at least as deep as any reorg the indexer applies (Ponder's finality depth: 30
   * blocks for BSC, 240 for Arbitrum; BSC is final at about n+2). Every pass re-reads the
   * window's rows, so its depth is paid on every block: 256 on BSC made each pass at 16
   * trades a second re-read about 1,800 trades (docs/capacity.md).
   */
  reorgWindowBlocks: { bsc: 64, arbitrum: 256 },
  /**
   * A consumed inbox row is kept this long, then pruned (dead letters stay until replayed). The
   * inbox is also what keeps a redelivery from counting twice (an inference minute is a sum), so
   * the window is far past any sender's retries: Standard Webhooks senders give up within days.
   */
  inboxRetentionDays: 30,
  inboxPruneQueue: "events-inbox-prune",
  inboxPruneCron: "41 * * * *",
  inboxPruneBatch: 5_000,
} as const;

/**
 * The off-chain pollers (docs/pollers.md): one pg-boss job per agent per tick, each with its
 * own queue. `everyMs` is the tick; a test configuration may scale it (POLL_TIME_SCALE).
 */
export const POLLER_LIMITS = {
  /** Poll jobs one worker runs at once, per poller. */
  concurrency: 4,
  /** Jobs each of those fetches at once (it fetches again at once while batches are full). */
  batchSize: 5,
  /**
   * Each round polls the most urgent agents its budget pays for; urgency is the age of an
   * agent's data, and a watched agent's (read or subscribed to in the last 5 minutes) counts
   * this many times over: it is refreshed first, and no unwatched agent starves
   * (jobs/pollers/schedule.ts).
   */
  watchedBoost: 30,
  /** Perps venue (Hyperliquid info API), source `hl-listener`. */
  perps: {
    queue: "poll-perps",
    everyMs: 10_000,
    /** A poll still running after this is given up (a killed worker's job too). */
    expireSeconds: 60,
    /** Each poll asks again for this much history before its cursor: a fill the venue
     * reports late is still seen, and dedup by `tid` keeps it single. */
    overlapMs: 5 * 60_000,
    /** A new account's first poll reaches back this far. */
    lookbackMs: 7 * 86_400_000,
    /** Pages of a time-range query per poll (2000 fills / 500 ledger rows each). */
    maxPages: 5,
    /**
     * Fills and ledger updates are read when the account's figures changed since the last
     * read, and at least this often anyway (docs/pollers.md "Cheaper ticks"): a fill that
     * changes no figure, or that the venue lists late, is still seen within a sweep.
     */
    sweepEveryMs: 60_000,
    /**
     * When the budget runs short, a read of fills and ledger after a change goes first (it
     * claims the head of the line, lib/pollers/budget.ts), cheap ticks next, sweeps last: a
     * sweep on time goes only while the window's use is under this share of the budget (else
     * that tick is a cheap one)...
     */
    sweepBudgetShare: 0.6,
    /** ...and one this many periods late (or an account's first) claims too: none starves. */
    sweepClaimAfterPeriods: 2,
    /**
     * The sweep period grows with the accounts so that every account's sweep fits this share of
     * the budget (jobs/pollers/rounds.ts `sweepPeriodMs`): 1,000 accounts, about 3 hours.
     */
    sweepPlanShare: 0.25,
    /**
     * Each round plans polls for this share of the budget's pace; the rest is for fills and
     * ledger read after a change (they claim the head of the line when refused).
     */
    planShare: 0.8,
    /** The venue's limit: 1200 weight a minute per IP, every REST request (PROTOCOLS.md 1.2). */
    venueWeightPerMinute: 1_200,
    /**
     * What the perps poller may spend of it, over any 60 s, across every worker process
     * (lib/pollers/budget.ts): 75 %, leaving room for the other callers on the IP (the
     * steward's venue reads and orders) and for extra weight charged after an answer.
     */
    weightBudgetPerMinute: 900,
    /** A 429 from the venue stops the whole poller this long, doubling while 429s recur... */
    rateLimitBackoffMs: 60_000,
    /** ...up to this. */
    rateLimitMaxBackoffMs: 10 * 60_000,
  },
  /** Safe Transaction Service, source `safe-poller`. */
  safe: {
    queue: "poll-safe",
    everyMs: 30_000,
    expireSeconds: 120,
    /** `limit` of each multisig-transactions page, and pages per poll. */
    pageSize: 100,
    maxPages: 5,
    /**
     * The hosted service's limit: 5 requests a second per API key ("Rate Limits and Usage
     * Tiers", docs/upstreams.md "Safe Transaction Service").
     */
    serviceRequestsPerSecond: 5,
    /**
     * What the Safe poller spends of it, over any second, across every worker process
     * (lib/pollers/budget.ts): 4, leaving one for the seed's and operators' calls on the key.
     * 1,000 treasuries at 4 a second: each about every 4 minutes, a watched one every round.
     */
    requestsPerSecond: 4,
    /** A poll waits this long at most for its request's turn in the budget, then is deferred. */
    maxTurnWaitMs: 20_000,
    /** A 429 stops the whole poller this long, doubling while 429s recur, up to the max. */
    rateLimitBackoffMs: 10_000,
    rateLimitMaxBackoffMs: 5 * 60_000,
  },
  /** X API v2, source `social-poller`. */
  social: {
    queue: "poll-social",
    everyMs: 5 * 60_000,
    expireSeconds: 120,
    /** `max_results` of a user-tweets page (X: 5..100), and pages per poll. */
    maxResults: 100,
    maxPages: 3,
    /** Without a reset header, a 429 waits this long. */
    defaultBackoffMs: 15 * 60_000,
  },
} as const;

/** The trading-policy auditor: a pg-boss schedule every six hours. */
export const POLICY_AUDIT = {
  queue: "policy-audit",
  cron: "0 */6 * * *",
  /** The first run (no earlier run) audits this far back. */
  periodMs: 6 * 3_600_000,
  pollSeconds: 30,
  /** A run lasting longer is given up and tried again at the next tick. */
  expireSeconds: 1_800,
} as const;

/** Sell pledges: how often loosenings whose delay ended are looked for (jobs/policy/pledge-worker.ts). */
export const PLEDGE_BIND = {
  /** A loosening is announced at most this long after it binds. */
  everyMs: 10_000,
} as const;

/**
 * The dividend keeper (jobs/dividends/): claims holders' dividends for opted-in wallets with the
 * relayer's gas, so every figure here bounds what it spends.
 */
export const DIVIDEND_KEEPER = {
  queue: "dividend-keeper",
  cron: "*/15 * * * *",
  pollSeconds: 30,
  expireSeconds: 900,
  /** An account is claimed for only once it is owed this much on a token (0.001 BNB). */
  minClaimWei: 10n ** 15n,
  /** Gas the keeper may spend in any 24 hours (gas limit x price of every claim it signed), 0.05 BNB. */
  dailyBudgetWei: 5n * 10n ** 16n,
  /** Claim transactions per round, and accounts per `claimFee(accounts)`. */
  maxTxsPerRound: 10,
  maxAccountsPerTx: 100,
  /** (token, account) pairs read per round. */
  maxPairsPerRound: 2_000,
  /** How long a round waits for its claims to be mined before leaving them to the next. */
  receiptWaitMs: 60_000,
  receiptPollMs: 500,
} as const;
