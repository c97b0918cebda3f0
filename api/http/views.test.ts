import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestDatabase, type TestDatabase } from "../testing/postgres.ts";
import { readViews } from "./views.ts";

// The deadlock seen in chaos runs, reproduced: a restarting indexer takes ACCESS EXCLUSIVE
// locks on its tables one after another in one transaction (Ponder's crash recovery drops and
// recreates their triggers and indexes), while a read joins two of the views in the other
// order. Postgres aborts the read (40P01); readViews runs it again and it answers.

let db: TestDatabase;
beforeAll(async () => {
  db = await startTestDatabase();
  await db.sql.unsafe(`
    create schema lock_idx;
    create table lock_idx.token (address text primary key);
    create table lock_idx.trade (id text primary key, token text);
    insert into lock_idx.token values ('0xa');
    insert into lock_idx.trade values ('t1', '0xa'), ('t2', '0xa');
    create schema lock_views;
    create view lock_views.token as select * from lock_idx.token;
    create view lock_views.trade as select * from lock_idx.trade;
  `);
  // Postgres aborts whichever waiter checks for the cycle first, each deadlock_timeout after it
  // began to wait. Give the read 5 s (so the cycle is surely closed when it checks, even on a
  // loaded machine) and the indexer's session far longer below: the read is always the victim.
  await db.sql.unsafe("alter system set deadlock_timeout = '5s'");
  await db.sql.unsafe("select pg_reload_conf()");
});
afterAll(() => db?.stop());

it("a view read that deadlocks with the indexer's lock sweep is retried and answers", async () => {
  const indexer = await db.sql.reserve();
  await indexer`set deadlock_timeout = '60s'`;
  await indexer`begin`;
  await indexer`lock table lock_idx.token in access exclusive mode`;
  // The read locks trade first, then waits for token.
  const read = readViews(
    () => db.sql<{ trades: bigint; tokens: bigint }[]>`select
      (select count(*) from lock_views.trade) as trades,
      (select count(*) from lock_views.token) as tokens`,
  );
  for (;;) {
    const [w] = await db.sql`select count(*)::int as n from pg_stat_activity
      where wait_event_type = 'Lock' and query like '%lock_views.trade%' and pid <> pg_backend_pid()`;
    if (w?.n) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  // The indexer's next lock closes the cycle; Postgres breaks it by aborting the read.
  await indexer`lock table lock_idx.trade in access exclusive mode`;
  await new Promise((r) => setTimeout(r, 300));
  await indexer`commit`;
  indexer.release();
  const [row] = await read;
  expect({ trades: Number(row?.trades), tokens: Number(row?.tokens) }).toEqual({
    trades: 2,
    tokens: 1,
  });
});
