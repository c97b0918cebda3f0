import { describe, expect, it } from "vitest";
import { createReadCache, etagMatches } from "./read-cache.ts";

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
});
