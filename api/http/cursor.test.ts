import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor, malformedCursor, pageOf } from "./cursor.ts";

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

  it("refuses anything else with the malformed-cursor 400", () => {
    expect(() => decodeCursor("not a cursor")).toThrow(malformedCursor());
    expect(malformedCursor()).toMatchObject({
      code: "validation_failed",
      details: [{ path: "cursor", message: "not a cursor issued by this API" }],
    });
  });
});
