// Per-process cache of answers built from app tables a poller writes (perps, social): keyed by
// the request and the version of the rows behind it (the poll that wrote them), so an answer
// is computed once per poll and never served after a newer one. An answer that also depends on
// the clock (a window ending now) says until when it holds; `maxAgeMs` bounds the rest.
import { READ_CACHE_LIMITS } from "../limits.ts";
import { type CachedBody, strongEtag } from "./read-cache.ts";

const utf8 = new TextEncoder();

/** A computed answer that changes with time alone at `expiresAt` (ms since the epoch). */
export type TimedJson = { json: string; expiresAt: number };

export type VersionCache = {
  /** The answer of `key` at `version` (concurrent requests share one computation). */
  get(key: string, version: string, compute: () => Promise<unknown>): Promise<CachedBody>;
  /**
   * As `get`, for a computation that gives the JSON text itself (built without objects), with
   * the moment it goes stale by the clock if it has one.
   */
  getJson(
    key: string,
    version: string,
    json: () => Promise<string | TimedJson>,
  ): Promise<CachedBody>;
};

export type CreateVersionCacheParameters = {
  maxEntries?: number;
  /** Longest an answer is served without a new version (it has no clock of its own). */
  maxAgeMs?: number;
  /** All cached bodies together (their gzipped copies included); least recently used go first. */
  maxTotalBytes?: number;
};

type Entry = { version: string; until: number; bytes: number; body: Promise<CachedBody> };

/**
 * A cache of serialised answers by (key, version), bounded by entries and bytes (least recently
 * used out first) and by age. A failed computation is not kept.
 *
 * @example
 * const body = await cache.getJson(key, polls.version(id), async () => ({ json, expiresAt }));
 */
export function createVersionCache(o: CreateVersionCacheParameters = {}): VersionCache {
  const maxEntries = o.maxEntries ?? 20_000; // the byte budget is the real bound
  const maxAgeMs = o.maxAgeMs ?? 5_000;
  const maxTotalBytes = o.maxTotalBytes ?? READ_CACHE_LIMITS.maxTotalBytes;
  const entries = new Map<string, Entry>();
  let total = 0;
  const drop = (key: string) => {
    total -= entries.get(key)?.bytes ?? 0;
    entries.delete(key);
  };
  const evict = (keep: string) => {
    for (const k of entries.keys()) {
      if ((entries.size <= maxEntries && total <= maxTotalBytes) || k === keep) break;
      drop(k);
    }
  };
  function getJson(key: string, version: string, json: () => Promise<string | TimedJson>) {
    const now = Date.now();
    const hit = entries.get(key);
    if (hit && hit.version === version && now < hit.until) {
      entries.delete(key); // to the back: recently used
      entries.set(key, hit);
      return hit.body;
    }
    drop(key);
    const entry: Entry = { version, until: now + maxAgeMs, bytes: 0, body: undefined as never };
    entry.body = json().then((out) => {
      const timed = typeof out === "string" ? { json: out, expiresAt: Infinity } : out;
      entry.until = Math.min(entry.until, timed.expiresAt);
      const bytes = utf8.encode(timed.json);
      return { body: bytes, etag: strongEtag(bytes), block: null };
    });
    entries.set(key, entry);
    entry.body.then(
      (r) => {
        if (entries.get(key) !== entry) return;
        // A gzipped copy is made later by the first request that accepts it: counted ahead.
        entry.bytes =
          r.body.length +
          (r.body.length >= READ_CACHE_LIMITS.gzipMinBytes ? r.body.length >> 3 : 0);
        total += entry.bytes;
        evict(key);
      },
      () => {
        if (entries.get(key) === entry) drop(key);
      },
    );
    evict(key);
    return entry.body;
  }
  return {
    get: (key, version, compute) =>
      getJson(key, version, async () => JSON.stringify(await compute())),
    getJson,
  };
}
