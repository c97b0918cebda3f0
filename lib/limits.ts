/** Every limit and timeout of the shared library (lib/), in one place. */

/** Limits of the database clients, as postgres.js defaults. */
export const DB_LIMITS = {
  connectTimeoutSeconds: 10,
  idleTimeoutSeconds: 30,
  /** Default pool size per process; roles may ask for more. */
  maxConnections: 10,
  /** The API's pool unless API_DATABASE_POOL_SIZE says otherwise. */
  apiConnections: 10,
  /** Ponder's pool unless INDEXER_DATABASE_POOL_SIZE says otherwise (Ponder's own default). */
  ponderConnections: 30,
  /** Statements that run longer are cancelled by the server. */
  statementTimeoutMs: 30_000,
} as const;

/** Limits of the launch image check. */
export const IMAGE_LIMITS = {
  maxBytes: 5 * 1024 * 1024,
  connectTimeoutMs: 3_000,
  headersTimeoutMs: 5_000,
  /** The longest pause between two pieces of the body. */
  bodyTimeoutMs: 5_000,
  /** The whole fetch, from connect to the last byte: a server dripping a byte at a time
   * within the pauses above cannot hold a launch longer (AGENT.md states it). */
  totalTimeoutMs: 10_000,
} as const;

/** Chain reads of the dashboard (native balances, block times). */
export const CHAIN_READ_LIMITS = { timeoutMs: 5_000, retries: 1 } as const;

/** The agent dashboard's valuation and NAV snapshots. */
export const DASHBOARD_LIMITS = {
  /** NAV points are hourly. */
  navHourMs: 3_600_000,
  /** Past hours one run values from history per agent; older gaps are marked missing. */
  navMaxBackfillHours: 168,
  /** Agents valued per snapshot run. */
  navMaxAgentsPerRun: 500,
  /** Usage-based burn is measured over this many days (the burn is per 30 days). */
  burnWindowDays: 30,
  /** Decimals of the runway in days (rounded down: never promise a day the treasury lacks). */
  runwayPlaces: 2,
} as const;

/** Inbound webhook signatures (docs/events.md). */
export const WEBHOOK_LIMITS = {
  /** Largest distance between a webhook's `t` and our clock, either way: 5 minutes. */
  toleranceMs: 5 * 60_000,
  /** More `v1=` entries than this is not secret rotation but guessing. */
  maxSignatures: 8,
} as const;

/** Limits and timing of outbound webhooks (docs/webhooks.md explains them). */
export const OUTBOUND_LIMITS = {
  maxSubscriptionsPerAgent: 10,
  maxFilterValues: 20,
  /** A receiver must answer 2xx within this long (connect + headers + body). */
  requestTimeoutMs: 10_000,
  connectTimeoutMs: 3_000,
  /** A worker's claim on a delivery: the request timeout plus room to record the answer. */
  leaseMs: 15_000,
  /**
   * When the attempts of one delivery happen, counted from its first attempt: the last one
   * 24 h after, then the delivery is failed. Standard Webhooks' recommended schedule.
   */
  scheduleMs: [
    0,
    5_000,
    5 * 60_000,
    30 * 60_000,
    2 * 3_600_000,
    5 * 3_600_000,
    10 * 3_600_000,
    14 * 3_600_000,
    20 * 3_600_000,
    24 * 3_600_000,
  ],
  /** Each retry moves by up to ±this share of the gap since the previous scheduled attempt. */
  jitter: 0.1,
  /** Nothing but failures for this long disables a subscription. */
  failingWindowMs: 24 * 3_600_000,
  /** After a rotation the old secret keeps signing beside the new one this long. */
  rotationOverlapMs: 24 * 3_600_000,
  /** Requests in flight at once across every subscription of one worker. */
  globalConcurrency: 64,
  /** Events read from app.agent_events per fan-out transaction. */
  fanoutBatch: 500,
  /** The dispatcher looks for attempts that came due this often (notifications wake it sooner). */
  pollMs: 250,
  /** ...and for new events at least this often: NOTIFY agent_events wakes it at once. */
  fanoutEveryMs: 5_000,
  /** A chain event is delivered once its block is this deep below the chain head. */
  chainFinalityDepth: 15n,
  /** Bytes of a receiver's answer kept in the delivery log. */
  responseSnippetBytes: 512,
  /** Held chain events are checked against the head at most this often (an RPC call). */
  releaseEveryMs: 1_000,
  /** Held deliveries looked at per release pass. */
  releaseBatch: 500,
  /** The chain head read for finality, bounded like every outbound call. */
  headTimeoutMs: 5_000,
  /** Rows deleted per pruning statement: short transactions, no long lock on the log. */
  pruneBatch: 5_000,
  /** Finished deliveries (and their attempts) are kept this long in the log, then pruned. */
  retentionDays: 30,
  /** The pg-boss queue and cron of the pruning job (hourly). */
  pruneQueue: "outbound-prune",
  pruneCron: "17 * * * *",
} as const;

/**
 * Trading policy: the platform ceilings of docs/policies.md. A policy above one is
 * refused by validation, naming the field and the ceiling.
 */
export const POLICY_CEILINGS = {
  maxLeverage: 5,
  /** USD, decimal string: amounts are exact. */
  maxPositionUsd: "5000",
  maxOpenPositions: 10,
  /** USD per UTC day, decimal string. */
  dailyOpenBudgetUsd: "10000",
} as const;

/** Bounds of a sell pledge's terms (docs/policies.md, "Sell pledge"). */
export const PLEDGE_LIMITS = {
  /** No sells for up to ten years after launch. */
  maxLockDays: 3650,
  /** A loosening waits between one day and a year; 7 days unless the pledge says otherwise. */
  minLoosenDelayDays: 1,
  maxLoosenDelayDays: 365,
  defaultLoosenDelayDays: 7,
  /** Versions the pledge history answers with. */
  historyLimit: 100,
  /** `pledge.loosened` events one round writes (the next round writes the rest). */
  boundPerRound: 500,
} as const;

/** Bounds of the policy's other fields (not ceilings, sizes of the document). */
export const POLICY_LIMITS = {
  /** Markets per venue in `assets` or `deny`. */
  maxAssetsPerVenue: 200,
  maxApproveAllowlist: 50,
  /** The loss window: between one minute and 30 days (sample 86400). */
  minLossWindowSec: 60,
  maxLossWindowSec: 30 * 86_400,
  defaultLossWindowSec: 86_400,
  /** Decimals of USD amounts in a policy. */
  usdDecimals: 6,
} as const;

/**
 * Advisory-lock namespace of the relayer's nonce (first key of `pg_advisory_xact_lock(ns,
 * hashtext(address))`): every process that signs as the relayer (the API's deposit launches,
 * the worker's launch saga) takes it, so no two sign the same nonce.
 */
export const RELAYER_NONCE_LOCK = 7_400_014;

/** The relayer's budget for callers without funds of their own (lib/relayer/spend.ts). */
export const RELAYER_SPEND_LIMITS = {
  /**
   * Advisory lock every reservation takes (`pg_advisory_xact_lock(lock, 0)`): the check and the
   * insert of one caller never interleave with another's, on any API process.
   */
  lock: 7_400_017,
  /**
   * A reservation not signed after this long sent nothing (its request died first) and stops
   * counting; signing takes milliseconds, the nonce queue seconds at most.
   */
  unsentAfterSeconds: 60,
  /** The per-client window: a sliding hour. */
  clientWindowSeconds: 3600,
} as const;

/** The indexer's JSON-RPC requests (lib/indexer/transport.ts). */
export const INDEXER_RPC_LIMITS = {
  /** One request, counted from when it is sent (Ponder's own default). */
  timeoutMs: 10_000,
  /**
   * Requests in flight to a devnet's node at once; the rest wait in the transport, untimed.
   * Ponder's historical sync keeps up to 100 whole blocks in flight: a loaded anvil (~0.2 ms of
   * CPU per transaction of a whole block) answered them past the timeout, every retry added to
   * the pile, and the 100,000-trade bench never finished. 8 keeps both cores busy.
   */
  concurrency: 8,
  /**
   * The same for a remote provider (BSC, Arbitrum): it serves many requests at once, and a long
   * backfill raises Ponder's own rate (20 requests/s at first) towards 500/s; 32 in flight at
   * ~100 ms is 320/s.
   */
  remoteConcurrency: 32,
} as const;

/** Heartbeats of the long-running roles' instances (lib/heartbeat/, app.instances). */
export const HEARTBEAT_LIMITS = {
  /** How often an instance writes its heartbeat. */
  everyMs: 5_000,
  /** An instance whose heartbeat is older than this is silent (deep health, /metrics). */
  staleAfterMs: 30_000,
  /**
   * A silent instance's row is pruned after this: a crash stays visible for a day, long enough
   * to be seen the next morning, and the table stays the size of what runs.
   */
  retentionMs: 24 * 60 * 60 * 1000,
} as const;

/** How the index's freshness is measured and judged (lib/indexer/lag.ts). */
export const INDEXER_LAG_LIMITS = {
  /** How often the indexer role compares its checkpoint with the chain head. */
  checkEveryMs: 2_000,
  /** The head read for that comparison must answer within this long. */
  headTimeoutMs: 2_000,
  /**
   * The index is `stale` when the chain has been past its last indexed block for longer than
   * this (wall clock). Live indexing is about a block behind, one or two seconds.
   */
  staleAfterSeconds: 15,
  /** Head observations kept to date when the chain passed a block (an hour at 2 s). */
  headHistory: 1_800,
  /**
   * The second chain (Arbitrum) is `stale` when its index is more than this many blocks behind
   * its head: ~15 s of Arbitrum One's 0.25 s blocks (the wall-clock report above is BSC's).
   */
  arbitrumStaleAfterBlocks: 60,
} as const;

/** Repeated errors in the logs (lib/log-throttle.ts). */
export const LOG_LIMITS = {
  /**
   * An error of one cause is logged in full once, then summed up at most once per this
   * interval: a database that is down for minutes made every poller log 30 lines a second.
   */
  errorIntervalMs: 30_000,
} as const;

/**
 * A registered token's launch report (lib/launch-report.ts, src/launch-funding.ts): the buys in
 * its creation block and the `windowBlocks` after it (4.5 s on BSC at 0.45 s blocks, 10 s on the
 * devnet), and the BNB sent to each such buyer in the `fundingLookbackBlocks` before its first
 * buy (and earlier in that buy's block). The report is final once the index is past the window.
 */
export const LAUNCH_REPORT = {
  windowBlocks: 10,
  fundingLookbackBlocks: 20,
  /** A funder of at least this many of a launch's early buyers names them as one bundle. */
  bundleMinWallets: 2,
} as const;
