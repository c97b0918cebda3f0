import { createPublicClient, http } from "viem";
import type { Sql } from "../db/client.ts";

export type ChainStatus = {
  chain: string;
  chainId: number;
  /** Last block the indexer has processed (null before its first checkpoint). */
  indexedBlock: number | null;
  indexedAt: string | null;
  /** The chain's head from the RPC (null when the RPC did not answer in time). */
  headBlock: number | null;
  lagBlocks: number | null;
  /** True once the backfill is done and the views are published. */
  ready: boolean;
};

export type IndexerStatus = { schema: string; chains: ChainStatus[] };

/**
 * Progress of one Ponder deployment, read from its own `_ponder_checkpoint` and `_ponder_meta`
 * tables (present from its first seconds, before any view exists), and the chain head.
 *
 * @example
 * const status = await readIndexerStatus({ sql, schema: "indexer_1", rpcUrl });
 * // { schema: "indexer_1", chains: [{ chain: "bsc", indexedBlock: 1200, headBlock: 1201, lagBlocks: 1, ready: true, … }] }
 */
export async function readIndexerStatus(p: {
  sql: Sql;
  schema: string;
  rpcUrl: string;
  timeoutMs?: number;
}): Promise<IndexerStatus> {
  const exists = await p.sql`select 1 from information_schema.tables
    where table_schema = ${p.schema} and table_name = '_ponder_checkpoint'`;
  if (exists.length === 0) return { schema: p.schema, chains: [] };
  const [rows, meta, head] = await Promise.all([
    p.sql<{ chain: string; chainId: string; block: string; ts: string }[]>`
      select chain_name as chain, chain_id::text as "chainId",
             substring(latest_checkpoint, 27, 16)::bigint::text as block,
             substring(latest_checkpoint, 1, 10)::bigint::text as ts
      from ${p.sql(p.schema)}._ponder_checkpoint order by chain_name`,
    p.sql<{ ready: number | null }[]>`
      select (value->>'is_ready')::int as ready from ${p.sql(p.schema)}._ponder_meta where key = 'app'`,
    headBlock(p.rpcUrl, p.timeoutMs ?? 3_000),
  ]);
  const ready = meta[0]?.ready === 1;
  return {
    schema: p.schema,
    chains: rows.map((r) => {
      const indexed = Number(r.block);
      return {
        chain: r.chain,
        chainId: Number(r.chainId),
        indexedBlock: indexed,
        indexedAt: new Date(Number(r.ts) * 1000).toISOString(),
        headBlock: head,
        lagBlocks: head === null ? null : Math.max(0, head - indexed),
        ready,
      };
    }),
  };
}

async function headBlock(rpcUrl: string, timeoutMs: number): Promise<number | null> {
  const client = createPublicClient({
    transport: http(rpcUrl, { timeout: timeoutMs, retryCount: 0 }),
  });
  return client.getBlockNumber().then(Number, () => null);
}
