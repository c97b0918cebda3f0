import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";
import type { IndexedState } from "./indexed-block.ts";
import { createReadCache } from "./read-cache.ts";
import { cachedRead, type ReadDeps } from "./read-deps.ts";

/** Read deps at a generation the test moves by hand. */
function readsAt(state: IndexedState): ReadDeps {
  return {
    tracker: { current: async () => state, invalidate: () => {} },
    cache: createReadCache(),
  };
}

describe("cachedRead", () => {
  it("reads once per generation and URL, given the state, and answers 304 to a held ETag", async () => {
    const state: IndexedState = { gen: 1, block: "7", time: 1 };
    const reads = readsAt(state);
    let runs = 0;
    const app = new Hono<AppEnv>();
    app.get("/x", (c) => cachedRead(c, reads, async (s) => ({ n: ++runs, block: s.block })));

    const first = await app.request("/x");
    expect(await first.json()).toEqual({ n: 1, block: "7" });
    expect(first.headers.get("cache-control")).toBe("no-cache");
    expect(first.headers.get("x-indexed-block")).toBe("7");
    const etag = first.headers.get("etag") ?? "";
    expect((await app.request("/x", { headers: { "if-none-match": etag } })).status).toBe(304);
    expect(runs).toBe(1);

    state.gen = 2;
    state.block = "8";
    expect(await (await app.request("/x")).json()).toEqual({ n: 2, block: "8" });
  });

  it("answers 503 unavailable while the views are not published", async () => {
    const app = new Hono<AppEnv>();
    app.onError((e, c) => c.json({ error: e instanceof HttpError ? e.code : "other" }, 500));
    const missing = Object.assign(new Error('relation "onchain.token" does not exist'), {
      code: "42P01",
    });
    app.get("/x", (c) =>
      cachedRead(c, readsAt({ gen: 1, block: null, time: null }), async () => {
        throw missing;
      }),
    );
    expect(await (await app.request("/x")).json()).toEqual({ error: "unavailable" });
  });
});
