import type { Sql } from "../../lib/db/client.ts";
import { createRankings, type Rankings } from "../market/ranking.ts";
import { type IndexedBlockTracker, indexedBlockTracker } from "./indexed-block.ts";
import { createReadCache, type ReadCache } from "./read-cache.ts";

/** What chain-derived reads share in one API process (issue 17): see docs/market.md "Caching". */
export type ReadDeps = {
  tracker: IndexedBlockTracker;
  cache: ReadCache;
  rankings: Rankings;
};

/**
 * The indexed-block tracker, the read cache and the `/tokens` rankings of one process.
 *
 * @example
 * const reads = createReadDeps(sql, "onchain");
 */
export function createReadDeps(sql: Sql, schema: string): ReadDeps {
  return {
    tracker: indexedBlockTracker(sql, schema),
    cache: createReadCache(),
    rankings: createRankings(sql, schema),
  };
}
