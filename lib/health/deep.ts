import type { Sql } from "../db/client.ts";
import {
  BEATING_ROLES,
  type Instance,
  type RoleInstances,
  readInstances,
} from "../heartbeat/instances.ts";
import { readFreshness } from "../indexer/lag.ts";
import { readCheckpoints } from "../indexer/status.ts";

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

/** A silent instance as deep health names it. */
export type SilentInstance = {
  instance: string;
  host: string;
  pid: number;
  version: string;
  startedAt: string;
  lastBeatAt: string;
  silentSeconds: number;
};

/** Per role: live instances counted, silent ones named. */
export type InstancesCheck = Record<string, { live: number; silent: SilentInstance[] }>;

export type DeepHealth = {
  healthy: boolean;
  checks: {
    database: DependencyCheck;
    rpc: DependencyCheck;
    indexer: DependencyCheck;
    worker: DependencyCheck;
  };
  instances: InstancesCheck;
};

export type DeepHealthParameters = {
  sql: Sql;
  viewsSchema: string;
  headBlock: () => Promise<bigint | undefined>;
  /** Silence after which an instance is reported (default HEARTBEAT_LIMITS.staleAfterMs). */
  silentAfterMs?: number;
};

/**
 * Checks every dependency a request may need, each on its own: the database answers, the RPC
 * gives a head block, the index is not stale (lib/indexer/lag.ts), a worker instance beats.
 * Healthy when all are up. `instances` counts each role's live instances and names the silent
 * ones; a silent instance alone does not fail the check while another of its role is live (a
 * load balancer would otherwise pull every API for one dead worker).
 *
 * @example
 * const h = await deepHealth({ sql, viewsSchema: "onchain", headBlock: async () => 12n });
 */
export async function deepHealth(p: DeepHealthParameters): Promise<DeepHealth> {
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
    return {
      healthy: false,
      checks: { database, rpc, indexer: unknown, worker: unknown },
      instances: {},
    };
  }
  const [indexer, instances] = await Promise.all([
    indexerCheck(p.sql, p.viewsSchema, head),
    readInstances(p.sql, { roles: BEATING_ROLES, silentAfterMs: p.silentAfterMs }).catch(
      (e: unknown) => errorText(e),
    ),
  ]);
  const worker = workerCheck(instances);
  const checks = { database, rpc, indexer, worker };
  return {
    healthy: Object.values(checks).every((c) => c.state === "up"),
    checks,
    instances: typeof instances === "string" ? {} : instancesCheck(instances),
  };
}

/**
 * `deepHealth` shared by its callers: one check serves everyone who asks while it runs and for
 * `ttlMs` after it finished, so N callers in that time cost one RPC read and one set of queries
 * however many there are. A check that throws is not kept.
 *
 * @example
 * const check = sharedDeepHealth({ sql, viewsSchema: "onchain", headBlock }, 2_000);
 * const h = await check(); // the same answer for every call in the next 2 s
 */
export function sharedDeepHealth(
  p: DeepHealthParameters,
  ttlMs: number,
): () => Promise<DeepHealth> {
  let current: { answer: Promise<DeepHealth>; until: number } | undefined;
  return () => {
    if (current && Date.now() < current.until) return current.answer;
    const entry = { answer: deepHealth(p), until: Number.POSITIVE_INFINITY };
    current = entry;
    entry.answer.then(
      () => {
        entry.until = Date.now() + ttlMs;
      },
      () => {
        if (current === entry) current = undefined;
      },
    );
    return entry.answer;
  };
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

function workerCheck(instances: Record<string, RoleInstances> | string): DependencyCheck {
  if (typeof instances === "string") return { state: "down", detail: instances };
  const { live, silent } = instances.worker ?? { live: [], silent: [] };
  const last = [...live, ...silent].sort((a, b) => b.beatAt.getTime() - a.beatAt.getTime())[0];
  const lastBeatAt = last ? last.beatAt.toISOString() : null;
  if (live.length > 0) return { state: "up", lastBeatAt };
  if (!last) return { state: "down", detail: "no worker ever reported", lastBeatAt };
  return {
    state: "down",
    detail: `no worker heartbeat for ${Math.round(last.silentSeconds)} s`,
    lastBeatAt,
  };
}

function instancesCheck(byRole: Record<string, RoleInstances>): InstancesCheck {
  const out: InstancesCheck = {};
  for (const [role, r] of Object.entries(byRole))
    out[role] = { live: r.live.length, silent: r.silent.map(silentInstance) };
  return out;
}

function silentInstance(i: Instance): SilentInstance {
  return {
    instance: i.instanceId,
    host: i.host,
    pid: i.pid,
    version: i.version,
    startedAt: i.startedAt.toISOString(),
    lastBeatAt: i.beatAt.toISOString(),
    silentSeconds: Math.round(i.silentSeconds),
  };
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
