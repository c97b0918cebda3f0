import { gunzipSync } from "node:zlib";
import { z } from "@hono/zod-openapi";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../env.ts";
import {
  acceptsGzip,
  cachedResponses,
  createReadCache,
  etagMatches,
  REVALIDATE,
  sendCached,
} from "./read-cache.ts";
import { errorResponse, NOT_MODIFIED } from "./schemas.ts";

const at = (gen: number) => ({ gen, block: String(100 + gen), time: 1 });

describe("read cache", () => {
  it("computes once per generation and URL; a newer generation computes again", async () => {
    const cache = createReadCache();
    let runs = 0;
    const read = async () => ({ n: ++runs });
    const [a, b] = await Promise.all([cache.get("/x", at(1), read), cache.get("/x", at(1), read)]);
    expect(runs).toBe(1);
    expect(a.body).toBe(b.body);
    expect(a.block).toBe("101");
    const c = await cache.get("/x", at(2), read);
    expect(JSON.parse(new TextDecoder().decode(c.body))).toEqual({ n: 2 });
    expect(c.etag).not.toBe(a.etag);
    // A request still holding the older generation gets a fresh answer, and does not
    // replace the newer one.
    await cache.get("/x", at(1), read);
    expect((await cache.get("/x", at(2), read)).body).toBe(c.body);
  });

  it("does not keep failures or oversized bodies", async () => {
    const cache = createReadCache({ maxBodyBytes: 10 });
    let runs = 0;
    await expect(
      cache.get("/e", at(1), async () => {
        runs++;
        throw new Error("no");
      }),
    ).rejects.toThrow("no");
    await cache.get("/e", at(1), async () => ++runs);
    expect(runs).toBe(2);
    await cache.get("/big", at(1), async () => ({ text: "x".repeat(50), n: ++runs }));
    await new Promise((r) => setImmediate(r));
    await cache.get("/big", at(1), async () => ({ n: ++runs }));
    expect(runs).toBe(4);
  });

  it("keeps the newest answers within its byte budget", async () => {
    const cache = createReadCache({ maxTotalBytes: 100 });
    let runs = 0;
    const read = async () => ({ pad: "x".repeat(30), n: ++runs });
    for (const k of ["/1", "/2", "/3", "/4"]) await cache.get(k, at(1), read);
    await new Promise((r) => setImmediate(r));
    expect(runs).toBe(4);
    await cache.get("/4", at(1), read); // newest: kept
    expect(runs).toBe(4);
    await cache.get("/1", at(1), read); // oldest: evicted (4 x ~45 bytes > 100)
    expect(runs).toBe(5);
  });

  it("same bytes, same strong ETag; If-None-Match lists and W/ prefixes match it", async () => {
    const cache = createReadCache();
    const a = await cache.get("/a", at(1), async () => ({ v: 1 }));
    const b = await cache.get("/a", at(2), async () => ({ v: 1 }));
    expect(a.etag).toBe(b.etag);
    expect(etagMatches(`"zz", W/${a.etag}`, a.etag)).toBe(true);
    expect(etagMatches('"zz"', a.etag)).toBe(false);
    expect(etagMatches(undefined, a.etag)).toBe(false);
  });

  it("sends large answers gzipped to clients that accept it, with their own strong ETag", async () => {
    const cache = createReadCache();
    const items = Array.from({ length: 200 }, (_, i) => ({
      time: i,
      close: String(10n ** 20n + BigInt(i)),
    }));
    const app = new Hono<AppEnv>();
    app.get("/big", async (c) =>
      sendCached(c, await cache.get("/big", at(1), async () => items), REVALIDATE),
    );
    app.get("/small", async (c) =>
      sendCached(c, await cache.get("/small", at(1), async () => 1), REVALIDATE),
    );
    const get = (path: string, headers: Record<string, string> = {}) =>
      app.request(path, { headers });

    const plain = await get("/big");
    const plainBytes = Buffer.from(await plain.arrayBuffer());
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(JSON.parse(plainBytes.toString())).toEqual(items);

    const zipped = await get("/big", { "accept-encoding": "gzip, deflate, br" });
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect(zipped.headers.get("vary")).toContain("Accept-Encoding");
    const zippedBytes = Buffer.from(await zipped.arrayBuffer());
    expect(zippedBytes.length).toBeLessThan(plainBytes.length / 3);
    expect(gunzipSync(zippedBytes).equals(plainBytes)).toBe(true);
    const etag = zipped.headers.get("etag") ?? "";
    expect(etag).not.toBe(plain.headers.get("etag"));

    // Each representation revalidates with its own tag only.
    expect((await get("/big", { "accept-encoding": "gzip", "if-none-match": etag })).status).toBe(
      304,
    );
    expect((await get("/big", { "if-none-match": etag })).status).toBe(200);
    const again = await get("/big", {
      "accept-encoding": "gzip",
      "if-none-match": plain.headers.get("etag") ?? "",
    });
    expect(again.status).toBe(200);
    // Small answers and refusals of gzip stay as they are.
    expect(
      (await get("/small", { "accept-encoding": "gzip" })).headers.get("content-encoding"),
    ).toBeNull();
    expect(
      (await get("/big", { "accept-encoding": "gzip;q=0, identity" })).headers.get(
        "content-encoding",
      ),
    ).toBeNull();
  });

  it("reads Accept-Encoding as RFC 9110 does", () => {
    expect(acceptsGzip("gzip")).toBe(true);
    expect(acceptsGzip("br, GZIP;q=0.5")).toBe(true);
    expect(acceptsGzip("*")).toBe(true);
    expect(acceptsGzip("gzip;q=0")).toBe(false);
    expect(acceptsGzip("gzip; q=0.000, br")).toBe(false);
    expect(acceptsGzip("identity")).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
  });
});

describe("cachedResponses", () => {
  it("is the data route's responses with the 304 sendCached answers", () => {
    const r = cachedResponses("The thing", z.object({ n: z.number() }), {
      404: errorResponse("No such thing"),
    });
    expect(Object.keys(r)).toEqual(["200", "304", "400", "404", "429", "500", "503"]);
    expect(r[304]).toBe(NOT_MODIFIED[304]);
    expect(r[404].description).toBe("No such thing");
  });
});
