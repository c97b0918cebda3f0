import { expect, it } from "vitest";
import { WeightMeter } from "./weight.ts";

// The venue's limit read strictly: any minute, not only a fixed one, holds at most 1200.

it("refuses weight past the limit in any window, across a fixed minute's boundary too", () => {
  const m = new WeightMeter(1200, 60_000);
  const t0 = 1_000_000;
  // 1200 in the last seconds of one minute...
  for (let i = 0; i < 60; i++) expect(m.admit("meta", 20, t0 + 50_000 + i)).toBe(true);
  // ...leave nothing for the first seconds of the next: a fixed window would have reset.
  expect(m.admit("clearinghouseState", 2, t0 + 61_000)).toBe(false);
  // Once the burst is a window old, the weight is free again.
  expect(m.admit("clearinghouseState", 2, t0 + 110_100)).toBe(true);
  expect(m.snapshot(t0 + 110_100).used).toBe(2 + 2);
});

it("books an answer's extra weight and counts it against the next requests", () => {
  const m = new WeightMeter(100, 60_000);
  expect(m.admit("userFillsByTime", 20, 0)).toBe(true);
  m.extra("userFillsByTime", 80, 1);
  expect(m.admit("clearinghouseState", 2, 2)).toBe(false);
  expect(m.rateLimited).toBe(1);
});
