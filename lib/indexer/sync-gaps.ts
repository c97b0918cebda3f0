import { createPublicClient, http, type PublicClient } from "viem";
import type { Sql } from "../db/client.ts";

/** A chain the index follows, as the sync-cache check needs it. */
export type SyncChain = { name: string; chainId: number; rpcUrl: string };

/** What `healSyncGaps` did for one chain. */
export type SyncGap = { chain: string; missingBlock: number; resyncFrom: number };

/**
 * Ponder resumes each chain from the end of its sync cache (`ponder_sync.intervals`): at start it
 * asks the chain for that block by number and retries a `null` answer forever. A devnet restored
 * from its state file keeps only recent empty blocks (docs/devnet-state.md), so that block may
 * be gone and the index never moves again. This cuts the chain's cached ranges back to the
 * newest block Ponder cached that the chain still has (a block with the service's logs; the chain
 * keeps every block with a transaction), so Ponder fetches the rest again with `eth_getLogs`,
 * which reads across the missing blocks. Nothing is lost: the logs stay in the cache and Ponder
 * re-reads the range. A no-op on a chain that has every block (BSC, Arbitrum One).
 *
 * @returns the chains whose cache was cut back (empty when Ponder can resume as it is).
 * @example
 * const gaps = await healSyncGaps(sql, [{ name: "arbitrum", chainId: 42161, rpcUrl }]);
 */
export async function healSyncGaps(sql: Sql, chains: SyncChain[]): Promise<SyncGap[]> {
  if (!(await hasSyncCache(sql))) return [];
  const healed: SyncGap[] = [];
  for (const chain of chains) {
    const client = createPublicClient({
      transport: http(chain.rpcUrl, { timeout: 10_000, retryCount: 2 }),
    }) as PublicClient;
    // Each cached range's last block: Ponder resumes from one of them.
    const ends = await sql<{ end: string }[]>`
      select distinct upper(r)::numeric - 1 as end
      from ponder_sync.intervals, unnest(blocks) as r
      where chain_id = ${chain.chainId} order by 1`;
    let missing: number | undefined;
    for (const { end } of ends) {
      if (!(await hasBlock(client, Number(end)))) {
        missing = Number(end);
        break;
      }
    }
    if (missing === undefined) continue;
    const keep = await newestCachedBlock(sql, client, chain.chainId, missing);
    // Ponder stores a range [a, b] as numrange(a, b + 1, '[]') and reads it back so.
    if (keep < 0) await sql`delete from ponder_sync.intervals where chain_id = ${chain.chainId}`;
    else
      await sql`
        update ponder_sync.intervals
        set blocks = blocks * nummultirange(numrange(0, ${keep + 1}, '[]'))
        where chain_id = ${chain.chainId}`;
    healed.push({ chain: chain.name, missingBlock: missing, resyncFrom: keep + 1 });
  }
  return healed;
}

/** The newest block below `below` that Ponder cached and the chain still has (-1: none). */
async function newestCachedBlock(
  sql: Sql,
  client: PublicClient,
  chainId: number,
  below: number,
): Promise<number> {
  const rows = await sql<{ n: string }[]>`
    select number::text as n from ponder_sync.blocks
    where chain_id = ${chainId} and number < ${below} order by number desc limit 20`;
  for (const { n } of rows) if (await hasBlock(client, Number(n))) return Number(n);
  return -1;
}

/**
 * True when the chain's head is past block `n` and the chain answers `null` for it: a block it
 * no longer has (a restored devnet), not one still to come.
 */
export async function blockIsGone(rpcUrl: string, n: number): Promise<boolean> {
  const client = createPublicClient({
    transport: http(rpcUrl, { timeout: 10_000, retryCount: 1 }),
  }) as PublicClient;
  const head = await client.getBlockNumber().catch(() => undefined);
  if (head === undefined || Number(head) <= n) return false;
  return !(await hasBlock(client, n));
}

async function hasBlock(client: PublicClient, n: number): Promise<boolean> {
  const block = await client
    .request({ method: "eth_getBlockByNumber", params: [`0x${n.toString(16)}`, false] })
    .catch(() => undefined);
  // An RPC error is not a missing block: only a plain `null` is.
  return block !== null;
}

async function hasSyncCache(sql: Sql): Promise<boolean> {
  const [row] = await sql<{ found: boolean }[]>`
    select to_regclass('ponder_sync.intervals') is not null
       and to_regclass('ponder_sync.blocks') is not null as found`;
  return row?.found === true;
}

/**
 * The block a Ponder log line says a chain could not find (`BlockNotFoundError` on
 * `eth_getBlockByNumber`), with the chain's name, or undefined for any other line.
 */
export function missingBlockInLog(line: string): { chain: string; block: number } | undefined {
  if (!line.includes("BlockNotFoundError") || !line.includes("eth_getBlockByNumber")) return;
  try {
    const entry = JSON.parse(line) as { chain?: string; method?: string; request?: string };
    if (entry.method !== "eth_getBlockByNumber" || !entry.chain || !entry.request) return;
    const { params } = JSON.parse(entry.request) as { params?: unknown[] };
    const tag = params?.[0];
    if (typeof tag !== "string" || !/^0x[0-9a-f]+$/i.test(tag)) return;
    return { chain: entry.chain, block: Number(tag) };
  } catch {
    return;
  }
}
