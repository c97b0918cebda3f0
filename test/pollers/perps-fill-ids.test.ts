import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestDatabase, type TestDatabase } from "../../api/testing/postgres.ts";
import { fillEvents } from "../../jobs/pollers/perps-events.ts";
import { insertAgentEvents } from "../../lib/events/store.ts";
import type { Fill } from "../../services/hyperliquid/protocol.ts";

// what: two agents on both sides of one venue trade (one tid, two orders) each keep their fill,
// open and close; migration 030 moves stored fill ids to the new form, so the next poll's
// overlap stores nothing twice.

const A = `0x${"a1".repeat(20)}`;
const B = `0x${"b2".repeat(20)}`;
let db: TestDatabase;
beforeAll(async () => {
  db = await startTestDatabase();
  await db.sql`insert into app.agents (agent_id, name) values ('buyer', 'Buyer'), ('seller', 'Seller')`;
});
afterAll(() => db?.stop());

/** One side of trade `tid`: `oid` its order, opening a position of 0.5 BTC at 60000. */
const side = (tid: number, oid: number, s: "B" | "A"): Fill => ({
  coin: "BTC",
  px: "60000",
  sz: "0.5",
  side: s,
  time: 1_700_000_000_000,
  startPosition: "0",
  dir: s === "B" ? "Open Long" : "Open Short",
  closedPnl: "0",
  hash: `0x${"cd".repeat(32)}`,
  oid,
  crossed: s === "B",
  fee: "0.3",
  tid,
  feeToken: "USDC",
  twapId: null,
});

const stored = async (agent: string) =>
  (
    await db.sql<{ id: string }[]>`select source_event_id as id from app.agent_events
      where agent_id = ${agent} order by source_event_id`
  ).map((r) => r.id);

it("keeps both agents' sides of one trade", async () => {
  const events = [
    ...fillEvents("buyer", A, [side(900, 11, "B")]),
    ...fillEvents("seller", B, [side(900, 12, "A")]),
  ];
  expect(await insertAgentEvents({ sql: db.sql, events })).toHaveLength(4);
  expect(await stored("buyer")).toEqual(["fill:900:11", "open:900:11"]);
  expect(await stored("seller")).toEqual(["fill:900:12", "open:900:12"]);
});

it("migration 030 gives stored fills the new ids, and a poll that reads them again adds nothing", async () => {
  const old = fillEvents("buyer", A, [side(901, 21, "B")]).map((e) => ({
    ...e,
    sourceEventId: e.sourceEventId.replace(/:21$/, ""), // as the poller stored them before
  }));
  await insertAgentEvents({ sql: db.sql, events: old });
  const migration = join(import.meta.dirname, "../../lib/db/migrations/030_perps_fill_ids.sql");
  await db.sql.unsafe(readFileSync(migration, "utf8"));
  expect(await stored("buyer")).toEqual([
    "fill:900:11",
    "fill:901:21",
    "open:900:11",
    "open:901:21",
  ]);
  const again = fillEvents("buyer", A, [side(901, 21, "B")]);
  expect(await insertAgentEvents({ sql: db.sql, events: again })).toHaveLength(0);
});
