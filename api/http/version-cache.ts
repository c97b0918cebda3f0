// Per-process cache of answers built from app tables a poller writes (perps, social): keyed by
// the request and the version of the rows behind it (the poll that wrote them), so an answer
// is computed once per poll, never served after a newer one, and at most `maxAgeMs` old.
import { type CachedBody, strongEtag } from "./read-cache.ts";

const utf8 = new TextEncoder();

export type VersionCache = {
  /** The answer of `key` at `version` (concurrent requests share one computation). */
  get(key: string, version: string, compute: () => Promise<unknown>): Promise<CachedBody>;
  /** As `get`, for a computation that gives the JSON text itself (built without objects). */
  getJson(key: string, version: string, json: () => Promise<string>): Promise<CachedBody>;
};

/**
 * A cache of serialised answers by (key, version), bounded by entries (oldest out first) and
 * by age. A failed computation is not kept.
 *
 * @example
 * const body = await cache.get(c.req.url, polledAt, () => readAccount());
 */
export function createVersionCache(
  o: { maxEntries?: number; maxAgeMs?: number } = {},
): VersionCache {
  const maxEntries = o.maxEntries ?? 2_000;
  const maxAgeMs = o.maxAgeMs ?? 5_000;
  const entries = new Map<string, { version: string; at: number; body: Promise<CachedBody> }>();
  function getJson(key: string, version: string, json: () => Promise<string>) {
    const now = Date.now();
    const hit = entries.get(key);
    if (hit && hit.version === version && now - hit.at < maxAgeMs) return hit.body;
    const body = json().then((text) => {
      const bytes = utf8.encode(text);
      return { body: bytes, etag: strongEtag(bytes), block: null };
    });
    entries.delete(key);
    entries.set(key, { version, at: now, body });
    body.catch(() => {
      if (entries.get(key)?.body === body) entries.delete(key);
    });
    while (entries.size > maxEntries) {
      const oldest = entries.keys().next().value;
      if (oldest === undefined) break;
      entries.delete(oldest);
    }
    return body;
  }
  return {
    get: (key, version, compute) =>
      getJson(key, version, async () => JSON.stringify(await compute())),
    getJson,
  };
}
