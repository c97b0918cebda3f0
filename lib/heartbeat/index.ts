import type { Sql } from "../db/client.ts";
import { HEARTBEAT_LIMITS } from "../limits.ts";

/** A role's last heartbeat (app.role_heartbeats). */
export type Heartbeat = { role: string; beatAt: Date; detail: Record<string, unknown> };

/** Records that `role` is alive now, with what it wants others to know. */
export async function beat(sql: Sql, role: string, detail: object = {}): Promise<void> {
  await sql`
    insert into app.role_heartbeats (role, beat_at, detail)
    values (${role}, now(), ${sql.json(detail as never)})
    on conflict (role) do update set beat_at = excluded.beat_at, detail = excluded.detail`;
}

/** The heartbeat of `role`, or undefined if it never beat. */
export async function readHeartbeat(sql: Sql, role: string): Promise<Heartbeat | undefined> {
  const [row] = await sql<{ role: string; beatAt: Date; detail: Record<string, unknown> }[]>`
    select role, beat_at as "beatAt", detail from app.role_heartbeats where role = ${role}`;
  return row;
}

/**
 * Beats for `role` every `everyMs` until stopped; a failed beat (database away) is retried at
 * the next tick, and shows as a stale heartbeat to whoever checks.
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
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running) return;
    running = beat(p.sql, p.role)
      .catch((error: unknown) => p.onError?.(error))
      .finally(() => {
        running = undefined;
      });
  };
  tick();
  const timer = setInterval(tick, p.everyMs ?? HEARTBEAT_LIMITS.everyMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
