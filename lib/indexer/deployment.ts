import type { TransactionSql } from "postgres";
import type { Sql } from "../db/client.ts";
import { getMeta, setMeta } from "../db/meta.ts";

/** Prefix of Ponder deployment schemas; a reindex builds the next one beside the live one. */
export const INDEXER_SCHEMA_PREFIX = "indexer_";
const LIVE_KEY = "indexer.live";
/**
 * The block logs the handlers read (src/log-cache.ts): beside the deployments, not one of them, so
 * a reindex reads them from here; dropped with Ponder's RPC cache when the chain is reset.
 */
export const LOG_CACHE_SCHEMA = "log_cache";

/**
 * One Ponder deployment: the schema it writes and the block it started from. The start block
 * is part of Ponder's build id, so whoever resumes a deployment must run it with the same one.
 */
export type Deployment = { schema: string; fromBlock?: number };

/** The deployment the indexer role runs (the first one is `indexer_1` from the start block). */
export async function liveDeployment(sql: Sql): Promise<Deployment> {
  const live = await getMeta<Deployment>(sql, LIVE_KEY);
  if (live) return live;
  const first = { schema: `${INDEXER_SCHEMA_PREFIX}1` };
  await setMeta(sql, LIVE_KEY, first);
  return first;
}

/** Makes `d` the deployment the indexer role runs; the role picks it up within seconds. */
export async function setLiveDeployment(sql: Sql, d: Deployment): Promise<void> {
  await setMeta(sql, LIVE_KEY, d);
}

/** Forgets the live deployment (after the chain was reset and every schema dropped). */
export async function clearLiveDeployment(sql: Sql | TransactionSql): Promise<void> {
  await sql`delete from app.meta where key = ${LIVE_KEY}`;
}

/** A schema name no deployment has used: one past the highest `indexer_N` that exists. */
export async function nextSchemaName(sql: Sql): Promise<string> {
  const rows = await sql<{ name: string }[]>`
    select schema_name as name from information_schema.schemata
    where schema_name like ${`${INDEXER_SCHEMA_PREFIX}%`}`;
  const live = await getMeta<Deployment>(sql, LIVE_KEY);
  const numbers = [...rows.map((r) => r.name), live?.schema ?? ""]
    .map((name) => Number(name.slice(INDEXER_SCHEMA_PREFIX.length)))
    .filter((n) => Number.isInteger(n));
  return `${INDEXER_SCHEMA_PREFIX}${Math.max(0, ...numbers) + 1}`;
}

/** Drops a deployment's schema (never the live one). */
export async function dropDeployment(sql: Sql, schema: string): Promise<void> {
  const live = await liveDeployment(sql);
  if (schema === live.schema) throw new Error(`refusing to drop the live schema ${schema}`);
  if (!schema.startsWith(INDEXER_SCHEMA_PREFIX))
    throw new Error(`not an indexer schema: ${schema}`);
  await sql.unsafe(`drop schema if exists "${schema}" cascade`);
}
