// The block logs src/receipts.ts reads, kept in Postgres so a reindex does not read them from the
// node again. Registers no handler.
//
// Ponder's RPC cache (`ponder_sync`) does not keep `eth_getLogs`, and the handlers read a block's
// logs with their own client anyway (src/receipts.ts says why), so they are kept here: one row per
// block hash and topic set, in a schema of its own that outlives the indexer's schemas (a reindex
// writes a new one) and is dropped with `ponder_sync` when the chain is reset
// (lib/indexer/identity.ts). Keyed by block hash, a row can only ever describe that very block,
// so a reorg needs no cleanup: a block reorged away is simply never asked for again. Only logs a
// handler confirmed (they hold the transaction it asked about) are written.
//
// A cache, never the truth: when Postgres fails, reads go to the node and writes are dropped.
import { keccak256, toHex } from "viem";
import { createSql, type Sql } from "../lib/db/client.ts";
import { LOG_CACHE_SCHEMA } from "../lib/indexer/deployment.ts";
import { type Hex, settings } from "./settings.ts";

/** A log as the RPC sends it (every number hex). */
export type RawLog = {
  address: Hex;
  topics: Hex[];
  data: Hex;
  logIndex: Hex;
  transactionHash: Hex;
  blockHash: Hex;
};

const TABLE = `"${LOG_CACHE_SCHEMA}".block_logs`;
let db: Promise<Sql | undefined> | undefined;

/** The connection, with the table created on first use (undefined: no database configured). */
function connect(): Promise<Sql | undefined> {
  db ??= (async () => {
    const url = process.env.DATABASE_URL;
    if (!url) return undefined;
    const sql = createSql(url, { max: 2, appName: "launchpad-indexer-log-cache" });
    const create = () =>
      sql.unsafe(`
        create schema if not exists "${LOG_CACHE_SCHEMA}";
        create table if not exists ${TABLE} (
          chain_id integer not null, block_hash text not null, topics text not null,
          block_number bigint not null, logs text not null,
          primary key (chain_id, block_hash, topics));
        create index if not exists block_logs_number on ${TABLE} (chain_id, block_number);`);
    // Two processes creating it at once: one of them meets the other's catalog row.
    await create().catch(() => create());
    return sql;
  })().catch(() => undefined);
  return db;
}

/** One key for a topic set: logs read with other topics are another entry. */
export const topicsKey = (topics: Hex[]) => keccak256(toHex(topics.join(","))).slice(0, 18);

/**
 * The logs kept for `where` (a block hash, or a block number: any block of that height, to be
 * checked by the caller against the hash it is given), or undefined.
 */
export async function cachedLogs(
  where: { hash: Hex } | { number: bigint },
  topics: string,
): Promise<RawLog[] | undefined> {
  const sql = await connect();
  if (!sql) return undefined;
  const chain = settings.chainId;
  const rows = await ("hash" in where
    ? sql<{ logs: string }[]>`select logs from ${sql.unsafe(TABLE)}
        where chain_id = ${chain} and block_hash = ${where.hash} and topics = ${topics}`
    : sql<{ logs: string }[]>`select logs from ${sql.unsafe(TABLE)}
        where chain_id = ${chain} and block_number = ${where.number.toString()}
          and topics = ${topics} limit 1`
  ).catch(() => []);
  const text = rows[0]?.logs;
  return text === undefined ? undefined : (JSON.parse(text) as RawLog[]);
}

/** Keeps a block's confirmed logs; not awaited by indexing, failures dropped. */
export function keepLogs(block: { hash: Hex; number: bigint }, topics: string, logs: RawLog[]) {
  void connect()
    .then((sql) => {
      if (!sql) return;
      return sql`insert into ${sql.unsafe(TABLE)} values (${settings.chainId}, ${block.hash},
        ${topics}, ${block.number.toString()}, ${JSON.stringify(logs)}) on conflict do nothing`;
    })
    .catch(() => undefined);
}
