import type { Sql } from "../db/client.ts";

// What a role shares with the others (app.role_heartbeats: the indexer's progress), one row per
// role. Which processes are alive is per instance: ./instances.ts.

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
