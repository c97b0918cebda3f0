import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor, pageOf } from "./cursor.ts";

describe("pageOf", () => {
  const cursorOf = (n: number) => `after-${n}`;

  it("a row past the limit: the page without it, the cursor of the page's last row", () => {
    expect(pageOf([1, 2, 3], 2, cursorOf)).toEqual({ page: [1, 2], nextCursor: "after-2" });
  });

  it("no row past the limit: the last page, no cursor", () => {
    expect(pageOf([1, 2], 2, cursorOf)).toEqual({ page: [1, 2], nextCursor: null });
    expect(pageOf([], 2, cursorOf)).toEqual({ page: [], nextCursor: null });
  });
});

describe("cursor", () => {
  it("decodes what it encodes", () => {
    const p = { blockNumber: 120n, logIndex: 3 };
    expect(decodeCursor(encodeCursor(p))).toEqual(p);
  });
});
