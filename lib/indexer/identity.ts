import { createPublicClient, type Hex, http, type PublicClient } from "viem";
import { readChainIdentity } from "../chain.ts";
import type { Sql } from "../db/client.ts";
import { getMeta, setMeta } from "../db/meta.ts";
import type { Logger } from "../logger.ts";
import { clearLiveDeployment, INDEXER_SCHEMA_PREFIX, LOG_CACHE_SCHEMA } from "./deployment.ts";

/**
 * Ties the index to the chain it was built from. Ponder caches RPC results in `ponder_sync`
 * by chain id only, so a devnet that was reset (same id 56, new genesis) would be indexed on
 * top of the old chain's cache. When the chain's identity (see `readChainIdentity`) differs from the one recorded, every
 * indexer schema, the views schema and the RPC caches (Ponder's and the handlers' block logs) are
 * dropped before Ponder starts.
 * (The meta key keeps its historical name, `chain.genesis`.)
 *
 * @returns true when the index was reset.
 */
export async function resetIndexIfChainChanged(p: {
  sql: Sql;
  rpcUrl: string;
  viewsSchema: string;
  log: Logger;
  /** Meta key of this chain's identity: one per chain the index holds (default: BSC's). */
  metaKey?: string;
}): Promise<boolean> {
  const key = p.metaKey ?? "chain.genesis";
  const client = createPublicClient({
    transport: http(p.rpcUrl, { timeout: 10_000, retryCount: 3 }),
  });
  const genesis = await chainIdentity(client);
  const known = await getMeta<string>(p.sql, key);
  if (known === genesis) return false;
  let reset = false;
  if (known !== undefined) {
    p.log.warn(
      { key, known, genesis },
      "the chain was reset: dropping the index and the RPC cache",
    );
    const schemas = await p.sql<{ name: string }[]>`
      select schema_name as name from information_schema.schemata
      where schema_name like ${`${INDEXER_SCHEMA_PREFIX}%`}
         or schema_name in (${p.viewsSchema}, 'ponder_sync', ${LOG_CACHE_SCHEMA})`;
    await p.sql.begin(async (tx) => {
      for (const { name } of schemas) await tx.unsafe(`drop schema if exists "${name}" cascade`);
      await clearLiveDeployment(tx);
    });
    reset = true;
  }
  await setMeta(p.sql, key, genesis);
  return reset;
}

/** Waits for the chain to have an identity (its block 1), as a fresh devnet may not yet. */
async function chainIdentity(client: PublicClient, timeoutMs = 30_000): Promise<Hex> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const id = await readChainIdentity(client);
    if (id) return id;
    if (Date.now() > deadline) throw new Error("the chain has not mined block 1");
    await new Promise((r) => setTimeout(r, 250));
  }
}
