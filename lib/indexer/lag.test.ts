import { describe, expect, it } from "vitest";
import { judgeFreshness, lagTracker } from "./lag.ts";

const T0 = Date.parse("2026-01-01T00:00:00Z");

describe("lagTracker", () => {
  it("dates the lag from when the chain passed the indexed block, by the wall clock", () => {
    const t = lagTracker("indexer_1");
    expect(t.observe({ indexedBlock: 10, headBlock: 10, now: T0 }).lagSeconds).toBe(0);
    // The head moves on at 11 and 12 while the index stays at 10.
    t.observe({ indexedBlock: 10, headBlock: 11, now: T0 + 1_000 });
    t.observe({ indexedBlock: 10, headBlock: 12, now: T0 + 2_000 });
    const stuck = t.observe({ indexedBlock: 10, headBlock: 30, now: T0 + 20_000 });
    expect(stuck).toMatchObject({ indexedBlock: 10, headBlock: 30, lagSeconds: 19 });
    expect(stuck.advancedAt).toBe(new Date(T0).toISOString());
    // Catching up to 12 leaves the lag dated from when the head passed 12.
    const moving = t.observe({ indexedBlock: 12, headBlock: 30, now: T0 + 21_000 });
    expect(moving.lagSeconds).toBe(1);
    expect(moving.advancedAt).toBe(new Date(T0 + 21_000).toISOString());
    expect(t.observe({ indexedBlock: 30, headBlock: 30, now: T0 + 22_000 }).lagSeconds).toBe(0);
  });

  it("ignores block timestamps: a chain whose clock runs ahead (time warp) lags by seconds", () => {
    // Nothing but block numbers and observation times go in.
    const t = lagTracker("indexer_1");
    t.observe({ indexedBlock: 99, headBlock: 100, now: T0 });
    expect(t.observe({ indexedBlock: 100, headBlock: 101, now: T0 + 500 }).lagSeconds).toBe(0);
  });
});

describe("judgeFreshness", () => {
  const report = (lagSeconds: number, indexedBlock = 10, headBlock = 12) => ({
    at: T0,
    progress: {
      schema: "indexer_1",
      indexedBlock,
      headBlock,
      lagSeconds,
      advancedAt: new Date(T0).toISOString(),
      headMovedAt: new Date(T0).toISOString(),
    },
  });
  const judge = (lagBlocks: number | null, r: ReturnType<typeof report> | undefined, now = T0) =>
    judgeFreshness({ lagBlocks, report: r, now, staleAfterSeconds: 15 });

  it("is fresh at the head whatever the last report said", () => {
    expect(judge(0, report(100))).toEqual({
      lagSeconds: 0,
      stale: false,
      reportedAt: new Date(T0).toISOString(),
    });
  });

  it("grows the lag with the clock since the last report while behind: a dead indexer goes stale", () => {
    expect(judge(2, report(1))).toMatchObject({ lagSeconds: 1, stale: false });
    expect(judge(2, report(1), T0 + 10_000)).toMatchObject({ lagSeconds: 11, stale: false });
    expect(judge(20, report(1), T0 + 15_000)).toMatchObject({ lagSeconds: 16, stale: true });
  });

  it("is stale when behind and no indexer ever reported; unknown lag without a head", () => {
    expect(judge(5, undefined)).toEqual({ lagSeconds: null, stale: true, reportedAt: null });
    expect(judge(null, undefined)).toEqual({ lagSeconds: null, stale: false, reportedAt: null });
    // No head now: judged from the report alone.
    expect(judge(null, report(20))).toMatchObject({ lagSeconds: 20, stale: true });
  });
});
