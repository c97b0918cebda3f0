import type { Sql } from "../../lib/db/client.ts";
import type { ApiSettings } from "../settings.ts";
import { type IndexedBlockTracker, indexedBlockTracker } from "./indexed-block.ts";
import { createReadCache, type ReadCache } from "./read-cache.ts";

/** What chain-derived reads share in one API process: see docs/market.md "Caching". */
export type ReadDeps = {
  tracker: IndexedBlockTracker;
  cache: ReadCache;
};

/** What a route that reads the indexer's views is given: the pool, the settings, the read deps. */
export type ViewRouteDeps = { sql: Sql; settings: ApiSettings; reads: ReadDeps };

/** The indexed-block tracker and the read cache of one process. */
export function createReadDeps(sql: Sql, schema: string): ReadDeps {
  return { tracker: indexedBlockTracker(sql, schema), cache: createReadCache() };
}
