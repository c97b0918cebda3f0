import type { Sql } from "./client.ts";

/** Reads one `app.meta` value. */
export async function getMeta<T>(sql: Sql, key: string): Promise<T | undefined> {
  const [row] = await sql`select value from app.meta where key = ${key}`;
  return row?.value as T | undefined;
}

/** Writes one `app.meta` value. */
export async function setMeta(sql: Sql, key: string, value: unknown): Promise<void> {
  await sql`insert into app.meta (key, value) values (${key}, ${sql.json(value as never)})
    on conflict (key) do update set value = excluded.value, updated_at = now()`;
}
