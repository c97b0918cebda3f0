/** Limits of the job system, in one place. */
export const JOB_LIMITS = {
  /** pg-boss keeps its tables in this schema, apart from the app's and Ponder's. */
  schema: "jobs",
  /** On shutdown, running jobs get this long to finish before the worker exits. */
  stopTimeoutMs: 15_000,
  /** Connections pg-boss may hold. */
  maxConnections: 5,
} as const;
