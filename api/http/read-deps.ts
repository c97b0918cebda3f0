import type { Context } from "hono";
import type { Sql } from "../../lib/db/client.ts";
import type { AppEnv } from "../env.ts";
import type { ApiSettings } from "../settings.ts";
import {
  type IndexedBlockTracker,
  type IndexedState,
  indexedBlockTracker,
} from "./indexed-block.ts";
import { createReadCache, REVALIDATE, type ReadCache, sendCached } from "./read-cache.ts";
import { readViews } from "./views.ts";

/** What chain-derived reads share in one API process: see docs/market.md "Caching". */
export type ReadDeps = {
  tracker: IndexedBlockTracker;
  cache: ReadCache;
};

/** What a route that reads the indexer's views is given: the pool, the settings, the read deps. */
export type ViewRouteDeps = { sql: Sql; settings: ApiSettings; reads: ReadDeps };

/**
 * Answers a read of the views through the process's cache: `read` runs once per indexed
 * generation and URL, given that generation's state; views not published yet are a 503.
 *
 * @example
 * return cachedRead(c, d.reads, async (state) => ({ ok: true, data: { items, indexedBlock: state.block } }));
 */
export async function cachedRead(
  c: Context<AppEnv>,
  reads: ReadDeps,
  read: (state: IndexedState) => Promise<unknown>,
  cacheControl: string = REVALIDATE,
): Promise<Response> {
  const state = await reads.tracker.current();
  const cached = await readViews(() => reads.cache.get(c.req.url, state, () => read(state)));
  return sendCached(c, cached, cacheControl);
}

/** The indexed-block tracker and the read cache of one process. */
export function createReadDeps(sql: Sql, schema: string): ReadDeps {
  return { tracker: indexedBlockTracker(sql, schema), cache: createReadCache() };
}
