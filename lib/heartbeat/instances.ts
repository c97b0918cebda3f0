import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import type { Sql } from "../db/client.ts";
import { HEARTBEAT_LIMITS } from "../limits.ts";
import { startTicker } from "../ticker.ts";

/** The roles whose every process beats (the web role has no database). */
export const BEATING_ROLES = ["api", "worker", "indexer"] as const;

/** Who this process is, as its heartbeat row (app.instances) names it. */
export type InstanceIdentity = {
  role: string;
  instanceId: string;
  host: string;
  pid: number;
  version: string;
  startedAt: Date;
};

/** An instance's row, with how long ago it last beat by the database's clock. */
export type Instance = InstanceIdentity & { beatAt: Date; silentSeconds: number };

/** Per role: how many instances beat recently, and the ones that went silent. */
export type RoleInstances = { live: Instance[]; silent: Instance[] };

const VERSION = (
  JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "package.json"), "utf8")) as {
    version: string;
  }
).version;

/** A fresh identity: random, so a restarted process on the same host is a new instance. */
export function instanceIdentity(role: string): InstanceIdentity {
  return {
    role,
    instanceId: `${role}-${randomBytes(4).toString("hex")}`,
    host: hostname(),
    pid: process.pid,
    version: VERSION,
    startedAt: new Date(),
  };
}

/**
 * Records that this instance is alive now, and deletes rows silent for longer than the retention
 * (instances that died without a clean stop): every live instance prunes, so no role owns it.
 */
export async function beatInstance(
  sql: Sql,
  me: InstanceIdentity,
  retentionMs: number = HEARTBEAT_LIMITS.retentionMs,
): Promise<void> {
  await sql`
    with pruned as (
      delete from app.instances
      where beat_at < now() - make_interval(secs => ${retentionMs / 1000}))
    insert into app.instances (instance_id, role, host, pid, version, started_at, beat_at)
    values (${me.instanceId}, ${me.role}, ${me.host}, ${me.pid}, ${me.version},
      ${me.startedAt}, now())
    on conflict (instance_id) do update set beat_at = excluded.beat_at`;
}

/** A clean stop: the instance leaves, so scaling a role down does not read as a crash. */
export async function forgetInstance(sql: Sql, instanceId: string): Promise<void> {
  await sql`delete from app.instances where instance_id = ${instanceId}`;
}

/**
 * Every known instance of each role in `roles` (and of any other role that has rows), split
 * into live and silent by the database's clock, so hosts with skewed clocks agree.
 */
export async function readInstances(
  sql: Sql,
  o: { roles?: readonly string[]; silentAfterMs?: number } = {},
): Promise<Record<string, RoleInstances>> {
  const rows = await sql<Instance[]>`
    select instance_id as "instanceId", role, host, pid, version, started_at as "startedAt",
      beat_at as "beatAt", extract(epoch from now() - beat_at)::float8 as "silentSeconds"
    from app.instances order by role, started_at`;
  const silentAfter = (o.silentAfterMs ?? HEARTBEAT_LIMITS.staleAfterMs) / 1000;
  const out: Record<string, RoleInstances> = {};
  for (const role of o.roles ?? []) out[role] = { live: [], silent: [] };
  for (const r of rows) {
    out[r.role] ??= { live: [], silent: [] };
    const slot = out[r.role] as RoleInstances;
    (r.silentSeconds > silentAfter ? slot.silent : slot.live).push(r);
  }
  return out;
}

/**
 * Beats for this process every `everyMs` until stopped; a failed beat (database away) is
 * retried at the next tick and shows as silence to whoever checks. `stop` removes the row.
 *
 * @example
 * const hb = startHeartbeat({ sql, role: "worker" }); … await hb.stop();
 */
export function startHeartbeat(p: {
  sql: Sql;
  role: string;
  everyMs?: number;
  onError?: (error: unknown) => void;
}) {
  const me = instanceIdentity(p.role);
  const ticker = startTicker({
    tick: () => beatInstance(p.sql, me),
    everyMs: p.everyMs ?? HEARTBEAT_LIMITS.everyMs,
    immediately: true,
    onError: p.onError,
  });
  return {
    identity: me,
    stop: async () => {
      await ticker.stop();
      await forgetInstance(p.sql, me.instanceId).catch((error: unknown) => p.onError?.(error));
    },
  };
}
