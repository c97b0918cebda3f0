import type { Sql } from "./db/client.ts";

/** One counted request: the window's count so far and the whole seconds left in the window. */
export type RateLimitHit = { count: number; reset: number };

/**
 * The service's one rate limiter: a fixed window per key counted in `app.rate_limit`, so every
 * API instance shares one budget. Windows follow the database clock (instances may disagree on
 * theirs). Used by the per-IP/per-principal middleware and the per-key launch limit alike.
 *
 * @example
 * const { count, reset } = await countHit(sql, "ip:203.0.113.7", 60);
 * if (count > 60) throw tooMany(reset);
 */
export async function countHit(
  sql: Sql,
  key: string,
  windowSeconds: number,
): Promise<RateLimitHit> {
  const w = windowSeconds;
  const [row] = await sql<{ count: number; reset: number }[]>`
    insert into app.rate_limit as r (key, window_start, count)
    values (${key}, to_timestamp(floor(extract(epoch from now()) / ${w}) * ${w}), 1)
    on conflict (key, window_start) do update set count = r.count + 1
    returning r.count,
      ceil(extract(epoch from r.window_start) + ${w} - extract(epoch from clock_timestamp()))::int
        as reset`;
  if (!row) throw new Error("rate limit upsert returned no row");
  return { count: row.count, reset: Math.max(1, row.reset) };
}

/**
 * Deletes windows that ended long enough ago that no request can count in them.
 *
 * @example
 * await sweepRateLimits(sql, 60);
 */
export async function sweepRateLimits(sql: Sql, windowSeconds: number): Promise<void> {
  await sql`delete from app.rate_limit
    where window_start < now() - make_interval(secs => ${2 * windowSeconds})`;
}
