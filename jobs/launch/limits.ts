/** Limits of the launch saga, in one place. */
export const LAUNCH_LIMITS = {
  /** pg-boss queue of saga runs. */
  queue: "launch-saga",
  /** A worker holds a saga this long per heartbeat; a crashed worker's lease lapses after it. */
  leaseMs: 5_000,
  heartbeatMs: 1_500,
  /** How often a worker looks for sagas whose lease lapsed (a crash) and resumes them. */
  sweepEveryMs: 1_000,
  /** Sagas run at once per worker. */
  concurrency: 8,
  /** A transaction's receipt must arrive within this long. */
  receiptTimeoutMs: 60_000,
  /** Gas units the agent wallet is funded for (identity registration and createToken). */
  fundGasUnits: 6_000_000n,
  /** Tax terms of every launch (SPEC.md token defaults): 2% buy, 2% sell. */
  buyTaxBps: 200,
  sellTaxBps: 200,
  /** Share of each tax paid to the treasury (the rest goes to the platform). */
  treasuryShareBps: 5000,
} as const;

/** Saga steps, in order. Kill points (test mode) sit after each of them. */
export const SAGA_STEPS = [
  "wallet",
  "fund",
  "treasury",
  "identity",
  "launchpad",
  "register",
  "create",
] as const;
export type SagaStep = (typeof SAGA_STEPS)[number];
