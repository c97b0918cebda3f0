import type { Sql } from "../db/client.ts";

/** What marks an agent watched and for how long (docs/pollers.md "Who is polled when"). */
export const WATCHED_LIMITS = {
  /** A read or a subscription keeps an agent watched this long after it. */
  watchMs: 5 * 60_000,
  /** One process writes an agent's mark at most this often: a read costs at most one write. */
  writeEveryMs: 60_000,
  /** Agents whose last write a process remembers (oldest dropped first). */
  remembered: 10_000,
} as const;

/**
 * A marker of watched agents for one process (the API's reads, the WebSocket bridge's agent
 * channels): `app.watched_agents.until` moves to `watchMs` from now, written at most once per
 * `writeEveryMs` per agent by this process, and skipped in the database too when another process
 * moved it within that time. Never throws: a mark lost is a poll a little later, not an error.
 *
 * @example
 * const watch = watchMarker(sql); watch(agentId); // on every read of the agent
 */
export function watchMarker(sql: Sql, onError?: (error: unknown) => void) {
  const written = new Map<string, number>();
  return (agentId: string, now = Date.now()): void => {
    const last = written.get(agentId);
    if (last !== undefined && now - last < WATCHED_LIMITS.writeEveryMs) return;
    written.delete(agentId);
    written.set(agentId, now);
    if (written.size > WATCHED_LIMITS.remembered) {
      const oldest = written.keys().next().value;
      if (oldest !== undefined) written.delete(oldest);
    }
    const skipWithin = WATCHED_LIMITS.watchMs - WATCHED_LIMITS.writeEveryMs;
    sql`insert into app.watched_agents (agent_id, until)
        values (${agentId}, now() + ${WATCHED_LIMITS.watchMs} * interval '1 millisecond')
      on conflict (agent_id) do update set until = excluded.until
      where app.watched_agents.until < now() + ${skipWithin} * interval '1 millisecond'`.then(
      () => {},
      (error) => onError?.(error),
    );
  };
}

export type WatchMarker = ReturnType<typeof watchMarker>;

/** Agents watched now. */
export async function watchedAgents(sql: Sql): Promise<Set<string>> {
  const rows = await sql<{ agent_id: string }[]>`
    select agent_id from app.watched_agents where until > now()`;
  return new Set(rows.map((r) => r.agent_id));
}
