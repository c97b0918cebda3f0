/** Every limit, timeout and interval of the CLI and its supervisor, in one place. */

/** Limits of the supervisor. */
export const SUPERVISOR_LIMITS = {
  /** Lines of a dead child's output printed with the failure. */
  tailLines: 30,
  /** Time for every role to report ready after it was spawned. */
  readyTimeoutMs: 120_000,
  /** Time each child gets to exit after SIGTERM before SIGKILL. */
  stopTimeoutMs: 15_000,
  /**
   * A role is restarted at once this many times within the window. Past that, a
   * start in progress fails, and a running service restarts it after a back-off
   * (cli/restart-policy.ts).
   */
  maxRestarts: 3,
  restartWindowMs: 60_000,
  /** The first back-off past `maxRestarts`; it doubles with each further restart in the window. */
  backoffFirstMs: 1_000,
  /** The longest back-off: a role whose dependency is down is tried this often, for ever. */
  backoffMaxMs: 30_000,
} as const;

/** The supervisor's watchdog over the indexer role (cli/watchdog.ts). */
export const WATCHDOG_LIMITS = {
  /** How often it reads the indexer's heartbeat. */
  checkEveryMs: 5_000,
  /**
   * The indexer role is restarted when its index has not moved for this long while behind a
   * moving head, or when it has not reported for this long. Ponder retries a stalled RPC for
   * about two minutes by itself (lib/indexer/transport.ts); this catches what it never recovers.
   */
  stallMs: 60_000,
  /**
   * A (re)started indexer role must report within this long. Ponder's boot (build, schema,
   * the catch-up after a restart) takes tens of seconds on a loaded machine; judging it by
   * `stallMs` restarted it in a loop until the supervisor gave up.
   */
  bootGraceMs: 180_000,
} as const;

/** Intervals of the indexer and reindex commands. */
export const CLI_LIMITS = {
  /** How often the indexer role checks whether a reindex made another deployment live. */
  livePollMs: 2_000,
  /** How often `launchpad reindex` prints its progress. */
  progressEveryMs: 2_000,
  /**
   * Ponder gives up (exit 75) on a database that is down for about a minute; the indexer role
   * starts it again once the database answers, asking first after this long, then after
   * twice as long each time, up to `ponderRestartMaxMs`.
   */
  ponderRestartFirstMs: 1_000,
  ponderRestartMaxMs: 30_000,
  /** A Ponder that ran this long before it exited starts the back-off over. */
  ponderStableMs: 60_000,
  /**
   * What a start of Ponder waits for first (the last Ponder's lock cleared, the sync-cache check)
   * at most: past it Ponder starts anyway (it waits out a stale lock by itself), so no stuck
   * query or RPC call can keep the index stopped.
   */
  ponderPrestartMs: 20_000,
  /** A block Ponder asks for again this long after it was restarted past it: restart again. */
  goneAgainMs: 30_000,
} as const;
