import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestDatabase, type TestDatabase } from "../../api/testing/postgres.ts";
import { VIEW_STREAMS } from "../../api/ws/channels.ts";
import { ViewTail } from "../../api/ws/view-tail.ts";

// The tailer's reorg diff, step by step, on a throwaway table shaped like the `trade` view
// (test only: in the service only Ponder writes chain tables; test/ws/stack.test.ts makes a real
// anvil reorg). Deleting and inserting rows here plays what Ponder's revert does to the view.

const SCHEMA = "tail_test";
const spec = VIEW_STREAMS.find((s) => s.stream === "trade");
let db: TestDatabase;

beforeAll(async () => {
  db = await startTestDatabase();
  await db.sql.unsafe(`create schema ${SCHEMA};
    create table ${SCHEMA}.trade (id text primary key, token text, block_number numeric(78),
      log_index integer, tx_hash text)`);
}, 60_000);
afterAll(async () => db?.stop());

const put = (block: number, index: number, tag = "") =>
  db.sql`insert into ${db.sql(SCHEMA)}.trade values (${`${block}:${index}${tag}`}, '0xt',
    ${block}, ${index}, ${`0x${block}${index}${tag}`})`;
const drop = (block: number) =>
  db.sql`delete from ${db.sql(SCHEMA)}.trade where block_number >= ${block}`;
const ids = (b: Awaited<ReturnType<ViewTail["read"]>>) => ({
  added: b?.added.map((a) => a.row.id),
  removed: b?.removed.map((r) => r.key),
  rewoundTo: b?.rewoundTo?.map(String),
});

describe("ViewTail", () => {
  it("starts at the present, hands on new rows in order, and diffs a reorg", async () => {
    await put(100, 0);
    const tail = new ViewTail(db.sql, SCHEMA, spec as never);
    expect(ids(await tail.read())).toEqual({ added: [], removed: [], rewoundTo: undefined });
    await put(101, 0);
    await put(101, 1);
    await put(103, 0);
    expect(ids(await tail.read())).toEqual({
      added: ["101:0", "101:1", "103:0"],
      removed: [],
      rewoundTo: undefined,
    });
    expect(ids(await tail.read())).toEqual({ added: [], removed: [], rewoundTo: undefined });

    // A reorg from block 102: 103:0 goes; the new branch has trades in 102 (behind the cursor,
    // where nothing was removed) and 103. The row of block 100, there before the tail started,
    // and those of 101 stay and are not sent again.
    await drop(102);
    await put(102, 0, "b");
    await put(103, 0, "b");
    expect(ids(await tail.read())).toEqual({
      added: ["102:0b", "103:0b"],
      removed: ["103:0"],
      rewoundTo: ["102", "-1"],
    });
    expect(ids(await tail.read())).toEqual({ added: [], removed: [], rewoundTo: undefined });
  });

  it("notices a row that only moved to another block", async () => {
    await put(200, 0);
    const tail = new ViewTail(db.sql, SCHEMA, spec as never);
    await tail.read();
    await put(201, 3, "m");
    expect(ids(await tail.read()).added).toEqual(["201:3m"]);
    await db.sql`update ${db.sql(SCHEMA)}.trade set block_number = 202 where id = '201:3m'`;
    expect(ids(await tail.read())).toEqual({
      added: ["201:3m"],
      removed: ["201:3m"],
      rewoundTo: ["201", "2"],
    });
  });
});
