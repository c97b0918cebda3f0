import { createPublicClient, http } from "viem";
import type { Sql } from "../db/client.ts";

/** One chain's checkpoint of a Ponder deployment. */
export type Checkpoint = { chain: string; chainId: number; block: bigint; time: number };

/**
 * The checkpoints and readiness of the Ponder tables in `schema` (a deployment schema, or the
 * views schema that publishes one), or undefined when they do not exist (yet).
 *
 * @example
 * const index = await readCheckpoints(sql, "onchain"); // { chains: [{ chain: "bsc", block: 1200n, … }], ready: true }
 */
export async function readCheckpoints(
  sql: Sql,
  schema: string,
): Promise<{ chains: Checkpoint[]; ready: boolean } | undefined> {
  try {
    // Checkpoint layout (Ponder): timestamp in chars 1-10, block number in chars 27-42.
    const rows = await sql<{ chain: string; chainId: string; block: string; time: string }[]>`
      select chain_name as chain, chain_id::text as "chainId",
             substring(latest_checkpoint, 27, 16)::numeric::text as block,
             substring(latest_checkpoint, 1, 10)::numeric::text as time
      from ${sql(schema)}._ponder_checkpoint order by chain_id`;
    const [meta] = await sql<{ ready: number | null }[]>`
      select (value->>'is_ready')::int as ready from ${sql(schema)}._ponder_meta where key = 'app'`;
    const chains = rows.map((r) => ({
      chain: r.chain,
      chainId: Number(r.chainId),
      block: BigInt(r.block),
      time: Number(r.time),
    }));
    return { chains, ready: meta?.ready === 1 };
  } catch (error) {
    // 42P01: undefined_table — the deployment or its views do not exist yet.
    if ((error as { code?: string }).code === "42P01") return undefined;
    throw error;
  }
}

export type ChainStatus = {
  chain: string;
  chainId: number;
  indexedBlock: number;
  indexedAt: string;
  /** The chain's head from the RPC (null when the RPC did not answer in time). */
  headBlock: number | null;
  lagBlocks: number | null;
  /** True once the backfill is done and the views are published. */
  ready: boolean;
};

export type IndexerStatus = { schema: string; chains: ChainStatus[] };

/**
 * Progress of one Ponder deployment, from its own checkpoint tables (present from its first
 * seconds, before any view exists), and the chain head.
 */
export async function readIndexerStatus(p: {
  sql: Sql;
  schema: string;
  rpcUrl: string;
  /** RPCs of the other chains the index holds, by chain id (Arbitrum's, when configured). */
  otherRpcUrls?: Record<number, string>;
  timeoutMs?: number;
}): Promise<IndexerStatus> {
  const index = await readCheckpoints(p.sql, p.schema);
  const chains = index?.chains ?? [];
  const heads = await Promise.all(
    chains.map((c) => {
      const url = p.otherRpcUrls?.[c.chainId] ?? p.rpcUrl;
      return headBlock(url, p.timeoutMs ?? 3_000);
    }),
  );
  return {
    schema: p.schema,
    chains: chains.map((c, i) => {
      const head = heads[i] ?? null;
      return {
        chain: c.chain,
        chainId: c.chainId,
        indexedBlock: Number(c.block),
        indexedAt: new Date(c.time * 1000).toISOString(),
        headBlock: head,
        lagBlocks: head === null ? null : Math.max(0, head - Number(c.block)),
        ready: index?.ready ?? false,
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
