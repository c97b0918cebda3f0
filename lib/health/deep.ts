import type { Sql } from "../db/client.ts";
import { readHeartbeat } from "../heartbeat/index.ts";
import { readFreshness } from "../indexer/lag.ts";
import { readCheckpoints } from "../indexer/status.ts";
import { HEARTBEAT_LIMITS } from "../limits.ts";

/** One dependency's state in the deep health check. */
export type DependencyCheck = {
  state: "up" | "down" | "stale";
  /** Why it is not up, or what was measured. */
  detail?: string;
  headBlock?: number;
  indexedBlock?: number;
  lagBlocks?: number | null;
  lagSeconds?: number | null;
  lastBeatAt?: string | null;
};

export type DeepHealth = {
  healthy: boolean;
  checks: {
    database: DependencyCheck;
    rpc: DependencyCheck;
    indexer: DependencyCheck;
    worker: DependencyCheck;
  };
};

/**
 * Checks every dependency a request may need, each on its own: the database answers, the RPC
 * gives a head block, the index is not stale (lib/indexer/lag.ts), the worker's heartbeat is
 * recent. Healthy when all are up.
 *
 * @example
 * const h = await deepHealth({ sql, viewsSchema: "onchain", headBlock: async () => 12n });
 */
export async function deepHealth(p: {
  sql: Sql;
  viewsSchema: string;
  headBlock: () => Promise<bigint | undefined>;
  now?: number;
}): Promise<DeepHealth> {
  const now = p.now ?? Date.now();
  const [database, head] = await Promise.all([
    p.sql`select 1`.then(
      (): DependencyCheck => ({ state: "up" }),
      (e: unknown): DependencyCheck => ({ state: "down", detail: errorText(e) }),
    ),
    p.headBlock().catch(() => undefined),
  ]);
  const rpc: DependencyCheck =
    head === undefined
      ? { state: "down", detail: "no RPC answered eth_blockNumber in time" }
      : { state: "up", headBlock: Number(head) };
  if (database.state === "down") {
    const unknown: DependencyCheck = { state: "down", detail: "the database is down" };
    return { healthy: false, checks: { database, rpc, indexer: unknown, worker: unknown } };
  }
  const [indexer, worker] = await Promise.all([
    indexerCheck(p.sql, p.viewsSchema, head),
    workerCheck(p.sql, now),
  ]);
  const checks = { database, rpc, indexer, worker };
  return { healthy: Object.values(checks).every((c) => c.state === "up"), checks };
}

async function indexerCheck(
  sql: Sql,
  schema: string,
  head: bigint | undefined,
): Promise<DependencyCheck> {
  try {
    const index = await readCheckpoints(sql, schema);
    const chain = index?.chains[0];
    if (!chain) return { state: "down", detail: "the index is not published yet" };
    const lagBlocks = head === undefined ? null : Math.max(0, Number(head - chain.block));
    const f = await readFreshness({ sql, lagBlocks });
    return {
      state: f.stale ? "stale" : "up",
      indexedBlock: Number(chain.block),
      lagBlocks,
      lagSeconds: f.lagSeconds,
      ...(f.stale ? { detail: "the index is behind the chain head" } : {}),
    };
  } catch (e) {
    return { state: "down", detail: errorText(e) };
  }
}

async function workerCheck(sql: Sql, now: number): Promise<DependencyCheck> {
  try {
    const hb = await readHeartbeat(sql, "worker");
    if (!hb) return { state: "down", detail: "the worker never reported", lastBeatAt: null };
    const age = now - hb.beatAt.getTime();
    const lastBeatAt = hb.beatAt.toISOString();
    if (age > HEARTBEAT_LIMITS.staleAfterMs)
      return { state: "down", detail: `no heartbeat for ${Math.round(age / 1000)} s`, lastBeatAt };
    return { state: "up", lastBeatAt };
  } catch (e) {
    return { state: "down", detail: errorText(e) };
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
