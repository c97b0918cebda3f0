// Per-process cache of chain-derived answers, keyed by the indexed generation: an answer is
// served again only while neither the index nor the app tables it joins moved.
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env.ts";
import { READ_CACHE_LIMITS } from "../limits.ts";
import type { IndexedState } from "./indexed-block.ts";
import { dataResponses, NOT_MODIFIED } from "./schemas.ts";

/**
 * A serialised answer: the exact bytes (UTF-8, encoded once: a hit writes them as they are),
 * their strong ETag and the block they reflect.
 */
export type CachedBody = {
  body: Uint8Array<ArrayBuffer>;
  etag: string;
  block: string | null;
  /** The body gzipped, made by the first request that accepts it (`sendCached`). */
  gzip?: Uint8Array<ArrayBuffer>;
};

/** A strong ETag: the body's SHA-256 (base64url, 162 bits kept). */
export function strongEtag(body: string | Uint8Array): string {
  return `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
}

/** True when `ifNoneMatch` (a header value) names `etag` (weak comparison, as RFC 9110 asks). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch
    .split(",")
    .map((t) => t.trim().replace(/^W\//, ""))
    .some((t) => t === "*" || t === etag);
}

const utf8 = new TextEncoder();

export type ReadCache = {
  /**
   * The answer of `key` at `state`: computed once per generation (concurrent requests share the
   * computation), serialised once. A failed computation is not kept.
   */
  get(key: string, state: IndexedState, compute: () => Promise<unknown>): Promise<CachedBody>;
  /** As `get`, for a computation that gives the JSON text itself (built without objects). */
  getJson(key: string, state: IndexedState, json: () => Promise<string>): Promise<CachedBody>;
};

/**
 * A read cache. Everything in it belongs to one generation: the first request that sees a newer
 * one empties it. A request still holding an older generation computes without caching. Bounded
 * by entries and by bytes (string lengths), oldest first.
 *
 * @example
 * const cached = await cache.get(c.req.url, await tracker.current(), () => readPage());
 */
export function createReadCache(
  o: { maxEntries?: number; maxBodyBytes?: number; maxTotalBytes?: number } = {},
): ReadCache {
  const maxEntries = o.maxEntries ?? READ_CACHE_LIMITS.maxEntries;
  const maxBodyBytes = o.maxBodyBytes ?? READ_CACHE_LIMITS.maxBodyBytes;
  const maxTotalBytes = o.maxTotalBytes ?? READ_CACHE_LIMITS.maxTotalBytes;
  let gen = -1;
  const entries = new Map<string, Promise<CachedBody>>();
  const sizes = new Map<string, number>();
  let total = 0;
  const drop = (key: string) => {
    entries.delete(key);
    total -= sizes.get(key) ?? 0;
    sizes.delete(key);
  };
  const serialise = async (state: IndexedState, json: () => Promise<string>) => {
    const body = utf8.encode(await json());
    return { body, etag: strongEtag(body), block: state.block };
  };
  const stringify = (compute: () => Promise<unknown>) => async () =>
    JSON.stringify(await compute());
  function getJson(
    key: string,
    state: IndexedState,
    compute: () => Promise<string>,
  ): Promise<CachedBody> {
    if (state.gen < gen) return serialise(state, compute);
    if (state.gen > gen) {
      gen = state.gen;
      entries.clear();
      sizes.clear();
      total = 0;
    }
    const hit = entries.get(key);
    if (hit) return hit;
    const p = serialise(state, compute);
    if (entries.size >= maxEntries) {
      const oldest = entries.keys().next().value;
      if (oldest !== undefined) drop(oldest);
    }
    entries.set(key, p);
    p.then(
      (r) => {
        if (entries.get(key) !== p) return;
        if (r.body.length > maxBodyBytes) return drop(key);
        sizes.set(key, r.body.length);
        total += r.body.length;
        // Oldest first until the bytes fit (the newest answer itself always stays).
        for (const k of entries.keys()) {
          if (total <= maxTotalBytes || k === key) break;
          drop(k);
        }
      },
      () => {
        if (entries.get(key) === p) drop(key);
      },
    );
    return p;
  }
  return {
    get: (key, state, compute) => getJson(key, state, stringify(compute)),
    getJson,
  };
}

/** True when an `Accept-Encoding` value accepts gzip (listed, or `*`, without `q=0`). */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (!acceptEncoding) return false;
  return acceptEncoding.split(",").some((part) => {
    const [coding, ...params] = part.split(";").map((t) => t.trim().toLowerCase());
    if (coding !== "gzip" && coding !== "*") return false;
    return !params.some((p) => /^q=0(\.0*)?$/.test(p));
  });
}

/**
 * Sends a cached answer: `ETag`, `Cache-Control`, `X-Indexed-Block`, and 304 when the client's
 * `If-None-Match` still holds. Large answers go gzipped to clients that accept it, compressed
 * once per answer; the gzipped bytes are another representation, so they have their own
 * strong ETag (the body's with `-gz`).
 */
export function sendCached(c: Context<AppEnv>, r: CachedBody, cacheControl: string): Response {
  const gzip =
    r.body.length >= READ_CACHE_LIMITS.gzipMinBytes && acceptsGzip(c.req.header("Accept-Encoding"));
  const etag = gzip ? `${r.etag.slice(0, -1)}-gz"` : r.etag;
  c.header("ETag", etag);
  c.header("Cache-Control", cacheControl);
  c.header("Vary", "Accept-Encoding", { append: true });
  if (r.block !== null) c.header("X-Indexed-Block", r.block);
  if (etagMatches(c.req.header("If-None-Match"), etag)) return c.body(null, 304);
  if (!gzip) return c.body(r.body, 200, { "Content-Type": "application/json" });
  r.gzip ??= new Uint8Array(gzipSync(r.body, { level: READ_CACHE_LIMITS.gzipLevel }));
  return c.body(r.gzip, 200, { "Content-Type": "application/json", "Content-Encoding": "gzip" });
}

/** The responses of a data route `sendCached` answers: `dataResponses` and the 304 of an ETag. */
export function cachedResponses<
  T extends z.ZodType,
  M extends Record<number, unknown> = Record<never, never>,
>(description: string, data: T, more?: M) {
  return { ...dataResponses(description, data, more), ...NOT_MODIFIED };
}

/** Cache-Control of answers that move with every block: stored, but revalidated (304 is cheap). */
export const REVALIDATE = "no-cache";
