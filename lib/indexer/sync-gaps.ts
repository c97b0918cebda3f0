import { createPublicClient, type Hex, http, type PublicClient } from "viem";
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

/** A block Ponder asked a chain for: by number (a sync cache end) or by hash (a live block). */
export type BlockAsked = { chain: string; block: number | Hex };

/**
 * True when the chain no longer has the block Ponder asked for: by number, the head is past it
 * and the chain answers `null`; by hash, the chain answers `null` for a block Ponder saw on it
 * (a restored devnet dropped it, or a reorg did). An RPC error is not an answer: false.
 */
export async function blockIsGone(rpcUrl: string, block: number | Hex): Promise<boolean> {
  const client = createPublicClient({
    transport: http(rpcUrl, { timeout: 10_000, retryCount: 1 }),
  }) as PublicClient;
  if (typeof block === "string") {
    const found = await client
      .request({ method: "eth_getBlockByHash", params: [block, false] })
      .catch(() => undefined);
    return found === null;
  }
  const head = await client.getBlockNumber().catch(() => undefined);
  if (head === undefined || Number(head) <= block) return false;
  return !(await hasBlock(client, block));
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
 * The block a Ponder log line says a chain failed to give, with the chain's name, or undefined
 * for any other line: `eth_getBlockByNumber` answered `null` (`BlockNotFoundError`; Ponder
 * retries it forever), or a call by block hash (`eth_getLogs`, `eth_getBlockByHash`) failed
 * a third time (anvil: "unknown block"; Ponder retries it with backoff, and a node behind its
 * peers may not know a new block for the first second). Whether the block is really gone is
 * for `blockIsGone` to tell.
 *
 * @example
 * blockAskedInLog(line); // { chain: "bsc", block: "0x4490…" }
 */
export function blockAskedInLog(line: string): BlockAsked | undefined {
  const byNumber = line.includes("BlockNotFoundError") && line.includes("eth_getBlockByNumber");
  if (!byNumber && !line.includes("Received JSON-RPC error")) return;
  try {
    const entry = JSON.parse(line) as {
      chain?: string;
      method?: string;
      request?: string;
      retry_count?: number;
    };
    if (!entry.chain || !entry.request) return;
    const { params } = JSON.parse(entry.request) as { params?: unknown[] };
    const first = params?.[0];
    if (byNumber && entry.method === "eth_getBlockByNumber") {
      if (typeof first !== "string" || !/^0x[0-9a-f]+$/i.test(first)) return;
      return { chain: entry.chain, block: Number(first) };
    }
    const hash =
      entry.method === "eth_getBlockByHash"
        ? first
        : entry.method === "eth_getLogs"
          ? (first as { blockHash?: unknown } | undefined)?.blockHash
          : undefined;
    if (typeof hash !== "string" || !/^0x[0-9a-f]{64}$/i.test(hash)) return;
    if ((entry.retry_count ?? 0) < 3) return;
    return { chain: entry.chain, block: hash as Hex };
  } catch {
    return;
  }
}
