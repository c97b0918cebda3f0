import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestDatabase, type TestDatabase } from "../testing/postgres.ts";
import { readCandles } from "./candles.ts";
import { toCandle } from "./chart.ts";
import { chartItemsJson } from "./chart-json.ts";

// The JSON Postgres writes must be the bytes the object path writes, so the answers (and their
// ETags) do not depend on which path built them. The candles are shaped as Ponder's `candle`
// view (test/market/market.test.ts checks the values themselves against the chain).

const S = "chart_json_test";
const A = "0x00000000000000000000000000000000000000aa";
const B = "0x00000000000000000000000000000000000000bb";
let db: TestDatabase;

beforeAll(async () => {
  db = await startTestDatabase();
  await db.sql.unsafe(`create schema ${S};
    create table ${S}.token (address text primary key);
    create table ${S}.candle (token text not null, interval text not null,
      bucket_start numeric(78) not null, open numeric(78) not null, high numeric(78) not null,
      low numeric(78) not null, close numeric(78) not null, volume_bnb numeric(78) not null,
      volume_token numeric(78) not null, trade_count integer not null, open_usd numeric(78),
      high_usd numeric(78), low_usd numeric(78), close_usd numeric(78),
      volume_usd numeric(78) not null, primary key (token, interval, bucket_start));
    insert into ${S}.token values ('${A}'), ('${B}');`);
  // Edge values: 78-digit integers, zeros, USD with and without fractions or trailing zeros,
  // candles before the first USD answer (null USD prices), times past 2038.
  await db.sql.unsafe(`insert into ${S}.candle
    select '${A}', '1m', 1700000000 + i * 60, 1e9 + i, 10::numeric ^ 77 - i, i, 1500000000,
      i * 1e18, 10::numeric ^ 40 + i, i,
      case when i < 3 then null else i * 1e18 end, 123456789012345678900 + i, 1e17, 5e17 + i * 1e16,
      case when i % 4 = 0 then 0 else 10::numeric ^ 30 + i * 1000 end
    from generate_series(0, 39) i;
    insert into ${S}.candle values ('${A}', '1d', 4102444800, 1, 2, 1, 2, 3, 4, 5, 1, 2, 1, 2, 7e18);`);
});
afterAll(() => db?.stop());

describe("chart items as JSON from Postgres", () => {
  it("equals toCandle + JSON.stringify for every range, limit and currency", async () => {
    const ranges = [
      { interval: "1m", limit: 300 },
      { interval: "1m", limit: 5 },
      { interval: "1m", limit: 40, from: 1700000000 + 60 * 2, to: 1700000000 + 60 * 7 },
      { interval: "1m", limit: 3, to: 1700000000 + 60 * 4 },
      { interval: "1m", limit: 10, from: 1800000000 },
      { interval: "1d", limit: 10 },
    ] as const;
    for (const r of ranges) {
      for (const currency of ["bnb", "usd"] as const) {
        const p = { address: A, currency, ...r };
        const bars = await readCandles(db.sql, S, { ...p, fill: false, now: 1900000000 });
        const expected = JSON.stringify(bars.map((b) => toCandle(b, currency)));
        const got = await chartItemsJson(db.sql, S, p);
        expect(got.known).toBe(true);
        expect(`[${got.items}]`).toBe(expected);
      }
    }
  });

  it("says whether the token is indexed, and gives no items for one without candles", async () => {
    const p = { interval: "1m", currency: "bnb", limit: 300 } as const;
    expect(await chartItemsJson(db.sql, S, { ...p, address: B })).toEqual({
      known: true,
      items: "",
    });
    const unknown = "0x00000000000000000000000000000000000000cc";
    expect((await chartItemsJson(db.sql, S, { ...p, address: unknown })).known).toBe(false);
  });
});
