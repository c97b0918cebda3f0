import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestDatabase, type TestDatabase } from "../../api/testing/postgres.ts";
import { pruneIdempotencyKeys } from "../../jobs/launch/prune-idempotency.ts";
import { LAUNCH_LIMITS } from "../../jobs/limits.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await startTestDatabase();
});
afterAll(() => db?.stop());

it("forgets keys older than the window, answered or left unanswered by a dead process, in batches; keeps younger ones", async () => {
  const { sql } = db;
  const over = LAUNCH_LIMITS.idempotencyPruneBatch + 1; // more than one batch
  await sql`insert into app.launch_idempotency (agent_id, idem_key, status, body, created_at)
    select 'old', 'k' || i, 201, '{}'::jsonb, now() - interval '25 hours'
    from generate_series(1, ${over}::int) i`;
  await sql`insert into app.launch_idempotency (agent_id, idem_key, created_at)
    values ('old', 'unanswered', now() - interval '25 hours'),
           ('young', 'in-flight', now() - interval '1 hour')`;
  await sql`insert into app.launch_idempotency (agent_id, idem_key, status, body, created_at)
    values ('young', 'answered', 409, '{}'::jsonb, now() - interval '23 hours')`;

  expect(await pruneIdempotencyKeys(sql, 24)).toBe(over + 1);
  const left = await sql<{ agent_id: string; idem_key: string }[]>`
    select agent_id, idem_key from app.launch_idempotency order by idem_key`;
  expect(left.map((r) => `${r.agent_id}/${r.idem_key}`)).toEqual([
    "young/answered",
    "young/in-flight",
  ]);
  expect(await pruneIdempotencyKeys(sql, 24)).toBe(0);
});
