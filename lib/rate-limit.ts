import type { Sql } from "./db/client.ts";

/** One counted request: the window's count so far and the whole seconds left in the window. */
export type RateLimitHit = { count: number; reset: number; resetMs: number };

/**
 * The service's one rate limiter: a fixed window per key counted in `app.rate_limit`, so every
 * API instance shares one budget. Windows follow the database clock (instances may disagree on
 * theirs). Used by the per-IP/per-principal middleware and the per-key launch limit alike.
 * `hits` > 1 reserves several hits at once (the middleware's batches under high limits); the
 * returned count is the window's count after all of them.
 *
 * @example
 * const { count, reset } = await countHit(sql, "ip:203.0.113.7", 60);
 * if (count > 60) throw tooMany(reset);
 */
export async function countHit(
  sql: Sql,
  key: string,
  windowSeconds: number,
  hits = 1,
): Promise<RateLimitHit> {
  const w = windowSeconds;
  const [row] = await sql<{ count: number; reset_ms: number }[]>`
    insert into app.rate_limit as r (key, window_start, count)
    values (${key}, to_timestamp(floor(extract(epoch from now()) / ${w}) * ${w}), ${hits})
    on conflict (key, window_start) do update set count = r.count + ${hits}
    returning r.count,
      ((extract(epoch from r.window_start) + ${w} - extract(epoch from clock_timestamp())) * 1000)::float8
        as reset_ms`;
  if (!row) throw new Error("rate limit upsert returned no row");
  const resetMs = Math.max(0, row.reset_ms);
  return { count: row.count, reset: Math.max(1, Math.ceil(resetMs / 1000)), resetMs };
}

/** Deletes windows that ended long enough ago that no request can count in them. */
export async function sweepRateLimits(sql: Sql, windowSeconds: number): Promise<void> {
  await sql`delete from app.rate_limit
    where window_start < now() - make_interval(secs => ${2 * windowSeconds})`;
}
