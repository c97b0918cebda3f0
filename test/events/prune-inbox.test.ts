import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestDatabase, type TestDatabase } from "../../api/testing/postgres.ts";
import { pruneInbox } from "../../jobs/events/prune-inbox.ts";

// what: the inbox's retention: consumed rows past the window go; rows still waiting and dead
// letters stay whatever their age, as do consumed rows inside the window.

let db: TestDatabase;
beforeAll(async () => {
  db = await startTestDatabase();
});
afterAll(() => db?.stop());

it("deletes consumed rows older than the window and keeps waiting, dead-lettered and younger ones", async () => {
  const { sql } = db;
  const row = (id: string, processed: string | null, failed: string | null) => sql`
    insert into app.webhook_inbox (source, source_event_id, event_type, payload, received_at,
      processed_at, failed_at)
    values ('code-host', ${id}, 'pr.merged', '{}'::jsonb, now() - interval '40 days',
      now() - ${processed}::interval, now() - ${failed}::interval)`;
  await row("consumed-old", "31 days", null);
  await row("consumed-young", "29 days", null);
  await row("waiting", null, null);
  await row("dead", null, "35 days");
  expect(await pruneInbox(sql, 30)).toBe(1);
  const left = await sql<{ source_event_id: string }[]>`
    select source_event_id from app.webhook_inbox order by source_event_id`;
  expect(left.map((r) => r.source_event_id)).toEqual(["consumed-young", "dead", "waiting"]);
});
