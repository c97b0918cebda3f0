import type { ChainCeiling } from "./ceiling.ts";
import type { ExactlyOnce } from "./checks.ts";
import type { StatementTime } from "./outside-postgres.ts";
import type { priceRpc } from "./pricing.ts";
import type { Summary } from "./stats.ts";
import type { TimelinePoint } from "./timeline.ts";

export type LoadOptions = {
  agents: number;
  /** Minutes of steady load at `tradesPerSecond` (after the sweep, if any). */
  minutes: number;
  tradesPerSecond: number;
  /** Raise the trade rate step by step until the lag or a read leaves its limit. */
  sweep: boolean;
  /** First sweep rate, factor between steps, seconds per step, at most this many steps. */
  sweepFrom: number;
  sweepFactor: number;
  stepSeconds: number;
  maxSteps: number;
  /** The X access tier the X stand-in's windows follow (passed to the stack as X_API_TIER: free, basic, pro or pay-per-use). */
  xTier: string;
  out: string;
  blockTime: number;
  readsPerSecond: number;
  subscribers: number;
  webhooks: number;
  /** Launches through the API before the load, and a minute during it. */
  initialLaunches: number;
  launchesPerMinute: number;
  idleSeconds: number;
  /** A read fails the sweep past 2x its idle p99 and at least this many ms over it. */
  readFloorMs: number;
  /** Trades a second while the read yardstick is taken (a quiet market). */
  idleTradesPerSecond: number;
  /** Transfers fed to the throwaway anvil for the chain's ceiling. */
  ceilingTransfers: number;
  seed: number;
  /** API and worker processes in all (the stack runs one of each; the rest beside it). */
  apis: number;
  workers: number;
  /** Start a Postgres apart from the stack (with pg_stat_statements) and give it DATABASE_URL. */
  outsidePostgres: boolean;
  /** Or an operator's own Postgres. */
  databaseUrl?: string;
  /** Seconds per point of the curves over time. */
  timelineSeconds: number;
  /** Keep the stack's data directory (its database, chain state and logs) after the run. */
  keep?: boolean;
  log: (line: string) => void;
};

export type Step = {
  askedPerSecond: number;
  tradesPerSecond: number;
  seconds: number;
  lagMs: Summary;
  readsMs: Record<string, Summary>;
  wsMs: Summary;
  webhookMs: Summary;
  pass: boolean;
  why: string;
};

export type LoadReport = {
  startedAt: string;
  command: string;
  machine: string;
  options: Omit<LoadOptions, "log">;
  idle: { readsMs: Record<string, Summary> };
  steps: Step[];
  ceiling: {
    oursTradesPerSecond: number | null;
    stoppedBecause: string;
    lagLimitMs: number;
    chain: ChainCeiling;
    ratio: number | null;
  };
  totals: {
    seconds: number;
    tradesPerSecond: number;
    trades: Record<string, number>;
    lagMs: Summary;
    readsMs: Record<string, Summary>;
    readErrors: Record<string, number>;
    wsMs: Summary;
    ws: { open: number; failed: number; messages: number };
    webhookMs: Summary;
    launchMs: Summary;
    launches: { asked: number; answered: number; refused: Record<string, number> };
    depositLaunches: number;
  };
  roles: Record<string, { cores: number; rssMb: number }>;
  timeline: TimelinePoint[];
  /** Where an outside Postgres's time went over the load (pg_stat_statements); empty otherwise. */
  statements: StatementTime[];
  postgres: {
    added: { rows: number; bytes: number };
    perDay: { rows: number; bytes: number };
    perMonth: { rows: number; bytes: number };
    tables: { table: string; rows: number; bytes: number }[];
  };
  rpc: {
    calls: Record<string, number>;
    perDay: Record<string, number>;
    price: ReturnType<typeof priceRpc>;
  };
  pollers: unknown;
  checks: ExactlyOnce;
};
