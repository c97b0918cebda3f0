import { describe, expect, it } from "vitest";
import { createVersionCache } from "./version-cache.ts";

// The per-poll answer cache: what makes it compute again, and what it keeps under its bounds.

const text = (b: { body: Uint8Array }) => new TextDecoder().decode(b.body);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function counted() {
  let n = 0;
  return {
    calls: () => n,
    json: (json: string, expiresAt?: number) => async () => {
      n++;
      return expiresAt === undefined ? json : { json, expiresAt };
    },
  };
}

describe("createVersionCache", () => {
  it("computes once per version, and again for a new one", async () => {
    const cache = createVersionCache();
    const c = counted();
    const [a, b] = await Promise.all([
      cache.getJson("k", "1", c.json('"one"')),
      cache.getJson("k", "1", c.json('"one"')),
    ]);
    expect(text(a)).toBe('"one"');
    expect(b).toBe(a);
    expect(text(await cache.getJson("k", "2", c.json('"two"')))).toBe('"two"');
    expect(c.calls()).toBe(2);
  });

  it("computes again once an answer's own clock ran out, or its age bound", async () => {
    const cache = createVersionCache({ maxAgeMs: 60_000 });
    const c = counted();
    await cache.getJson("timed", "1", c.json('"a"', Date.now() + 40));
    await cache.getJson("timed", "1", c.json('"a"'));
    expect(c.calls()).toBe(1);
    await sleep(60);
    expect(text(await cache.getJson("timed", "1", c.json('"b"')))).toBe('"b"');
    expect(c.calls()).toBe(2);

    const young = createVersionCache({ maxAgeMs: 40 });
    await young.getJson("k", "1", c.json('"x"'));
    await sleep(60);
    await young.getJson("k", "1", c.json('"x"'));
    expect(c.calls()).toBe(4);
  });

  it("keeps the recently used answers within its byte budget, and no failure", async () => {
    const cache = createVersionCache({ maxTotalBytes: 2_500 });
    const c = counted();
    const big = JSON.stringify("x".repeat(998)); // 1,000 bytes: no gzipped copy counted
    await cache.getJson("a", "1", c.json(big));
    await cache.getJson("b", "1", c.json(big));
    await cache.getJson("a", "1", c.json(big)); // a is now the most recent
    await cache.getJson("c", "1", c.json(big)); // 3,000 bytes: b goes
    expect(c.calls()).toBe(3);
    await cache.getJson("a", "1", c.json(big));
    expect(c.calls()).toBe(3);
    await cache.getJson("b", "1", c.json(big));
    expect(c.calls()).toBe(4);

    await expect(
      cache.getJson("f", "1", async () => {
        throw new Error("down");
      }),
    ).rejects.toThrow("down");
    expect(text(await cache.getJson("f", "1", c.json('"up"')))).toBe('"up"');
  });
});
