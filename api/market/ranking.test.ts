import { describe, expect, it } from "vitest";
import { pageOf, type RankedToken, type Ranking } from "./ranking.ts";

// Pages cut from a ranking must be what the SQL keyset pages were: (k, address) order both
// ways, a cursor that never repeats a token, offset and filters counted after the filter.

const addr = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
// Keys with ties, so the address decides among equals.
const rows: RankedToken[] = [5, 5, 4, 3, 3, 3, 0, 0]
  .map((k, i) => ({ address: addr(i + 1), k: BigInt(k), status: i % 2 ? "graduated" : "curve" }))
  .sort((x, y) => (x.k === y.k ? (x.address < y.address ? 1 : -1) : x.k < y.k ? 1 : -1));
const ranking: Ranking = { gen: 1, readAt: 0, rows };
const all = () => true;

function walk(desc: boolean, limit: number, keep: (r: RankedToken) => boolean = all) {
  const seen: string[] = [];
  let after: { k: string; a: string } | undefined;
  for (;;) {
    const page = pageOf(ranking, { desc, after, offset: 0, limit, keep });
    const shown = page.rows.slice(0, limit);
    seen.push(...shown.map((r) => r.address));
    const last = shown.at(-1);
    if (page.rows.length <= limit || !last) return seen;
    after = { k: last.k.toString(), a: last.address };
  }
}

describe("pageOf", () => {
  it("walks every token once in (k, address) order, descending and ascending, at any page size", () => {
    const desc = rows.map((r) => r.address);
    for (const limit of [1, 2, 3, 8, 20]) {
      expect(walk(true, limit)).toEqual(desc);
      expect(walk(false, limit)).toEqual([...desc].reverse());
    }
  });

  it("a cursor for a token no longer in the ranking still continues after its key", () => {
    // (4, addr(99)) sits between addr(3) (k 4) and the 3s in descending order.
    const page = pageOf(ranking, {
      desc: true,
      after: { k: "4", a: addr(99) },
      offset: 0,
      limit: 2,
      keep: all,
    });
    expect(page.rows.map((r) => r.k)).toEqual([4n, 3n, 3n]);
    expect(page.rows[0]?.address).toBe(addr(3));
  });

  it("filters before paging and counting; offset skips matches", () => {
    const graduated = (r: RankedToken) => r.status === "graduated";
    const expected = rows.filter(graduated).map((r) => r.address);
    expect(walk(true, 1, graduated)).toEqual(expected);
    const page = pageOf(ranking, { desc: true, offset: 1, limit: 2, keep: graduated });
    expect(page.total).toBe(expected.length);
    expect(page.rows.map((r) => r.address)).toEqual(expected.slice(1, 4));
  });
});
