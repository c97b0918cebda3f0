/** Every limit and interval of the local devnet (anvil, its state file, the stand-ins), in one place. */
export const DEVNET_LIMITS = {
  /** `devnet seed` trades the tokens of at most this many API-launched agents (the newest). */
  seedLaunchedTokens: 5,
  /** `devnet seed` waits this long for a launch through the API (retrying a 503 with its key). */
  seedLaunchWaitMs: 240_000,
  /** … and this long for the perps venue to credit its USDC deposit from Arbitrum. */
  seedVenueCreditWaitMs: 60_000,
  /** … and this long for the Safe Transaction Service to list its execution. */
  seedSafeServiceWaitMs: 30_000,
  /**
   * How often the devnet writes its state file while it runs. A hard kill (SIGKILL, power
   * loss) loses at most the blocks of this interval; a clean stop writes the file last.
   */
  stateDumpIntervalMs: 10_000,
  /** A state dump (anvil_dumpState) must answer within this long, or that dump is skipped. */
  stateDumpTimeoutMs: 20_000,
  /**
   * Blocks whose state anvil keeps in memory (`--prune-history`). Each one is a full copy of
   * the chain's accounts and storage, so anvil's memory is this times the state size. It is
   * also how far behind the head an `eth_call` may read: an indexer further behind than this
   * cannot read contract state at its blocks (about a minute of 1-second blocks). Anvil honours
   * it only without `--block-time` (docs/devnet-state.md), so the devnet mines blocks itself.
   */
  historyStates: 64,
  /**
   * A block the devnet mines (`evm_mine`, one per block time) must be answered within this many
   * block times, or that tick is given up and the next one mines.
   */
  mineTimeoutIntervals: 5,
  /**
   * Anvil keeps every block and every call trace in memory for the life of the process, and
   * each periodic dump carries them (~3 KB per block, ~8 KB of traces per trade). When anvil's
   * dump is this much bigger than the state file, the devnet restarts anvil from the file
   * (same chain) to shed them: a 1-2 s RPC outage that the indexer rides out.
   */
  restartAboveShedBytes: 16 * 1024 * 1024,
  /**
   * Anvil's memory holds ~8 times what its dump sheds, and keeps `historyStates` copies of the
   * system-contract ring buffers until they fill (8,191 blocks): in the 2-hour soak it grew by
   * ~70 MB an hour per chain before the dump-size trigger fired. When its resident memory has
   * grown by this much since it (re)started, the devnet restarts it from the state file too.
   * Read from /proc (Linux); elsewhere only the dump-size trigger applies.
   */
  restartAboveRssGrowthBytes: 64 * 1024 * 1024,
  /**
   * Empty blocks the state file keeps behind the head. Older empty blocks are left out: they
   * hold nothing, and without them the file grows with the transactions, not the block count.
   * More than twice the deepest finality Ponder uses on the devnets (Arbitrum: 240 blocks), so
   * the block where Ponder's sync cache ends is still there after a restart and it resumes
   * without re-syncing the chain (~1 KB per block).
   */
  recentBlocks: 512,
} as const;

/** Limits of the local stand-ins (they mirror the real services'). */
export const STAND_IN_LIMITS = {
  /** Largest image the four.meme stand-in accepts (four.meme: 5 MB). */
  fourMemeMaxImageBytes: 5 * 1024 * 1024,
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
  /**
   * The Safe Transaction Service stand-in's requests a second per API key, the hosted service's
   * default ("Rate Limits and Usage Tiers", docs/upstreams.md).
   */
  safeTxServiceRequestsPerSecond: 5,
  /**
   * The Steward stand-in's requests a minute per client address, Steward's default
   * (`RATE_LIMIT_MAX_REQUESTS`, docs/upstreams.md "Steward").
   */
  stewardRequestsPerMinute: 100,
  /** Bridge2's minimum deposit: less is not credited, and lost (PROTOCOLS.md 1.5). */
  hyperliquidMinDepositUsdc: 5,
} as const;
