import { afterAll, beforeAll, expect, it } from "vitest";
import { type TestApp, testApp } from "../testing/app.ts";
import { startTestDatabase, type TestDatabase } from "../testing/postgres.ts";

// A read of an agent marks it watched (app.watched_agents), so the pollers refresh it first
// (docs/pollers.md "Who is polled when"); a read costs at most one write a minute. And the
// poller-derived answers say how old they are (`asOf`), as the OpenAPI document declares.

let db: TestDatabase;
let t: TestApp;

beforeAll(async () => {
  db = await startTestDatabase();
  t = await testApp(db);
  await db.sql`insert into app.agents (agent_id, name, ticker, description, image_url)
    values ('watched-a', 'Watched', 'WAT', 'an agent someone reads', 'https://example.com/w.png')`;
}, 60_000);
afterAll(async () => {
  await db?.stop();
});

const watched = async () =>
  db.sql<{ agent_id: string; until: Date; xmin: string }[]>`
    select agent_id, until, xmin::text from app.watched_agents order by agent_id`;

/** The mark is written after the answer: wait for it (no time is asserted). */
async function settled<T>(read: () => Promise<T[]>, n: number): Promise<T[]> {
  for (;;) {
    const rows = await read();
    if (rows.length >= n) return rows;
    await new Promise((r) => setTimeout(r, 50));
  }
}

it("marks an agent watched for five minutes when it is read, with one write for many reads", async () => {
  const first = await t.get("/v2/agents/watched-a/social-stats");
  expect(first.status).toBe(200);
  const [row] = await settled(watched, 1);
  expect(row?.agent_id).toBe("watched-a");
  const [{ now } = { now: new Date() }] = await db.sql<{ now: Date }[]>`select now()`;
  expect(row?.until.getTime()).toBeGreaterThan(now.getTime() + 4 * 60_000);
  for (let i = 0; i < 5; i++) expect((await t.get("/v2/agents/watched-a/perps")).status).toBe(200);
  await t.get("/v2/agents/watched-a/follower-history");
  // The same row version: none of the later reads wrote.
  expect(await watched()).toEqual([row]);
  // An agent nobody has is not marked.
  expect((await t.get("/v2/agents/nobody-here/perps")).status).toBe(404);
  expect(await watched()).toEqual([row]);
});

it("says how old the polled answers are, as the OpenAPI document declares", async () => {
  const stats = await t.get("/v2/agents/watched-a/social-stats");
  expect(stats.body.data).toMatchObject({ asOf: null, cachedAt: null });
  expect(t.check("/v2/agents/{agent}/social-stats", 200, stats.body)).toEqual([]);
  await db.sql`insert into app.agent_social_cache (agent_id, follower_count, posts, cached_at)
    values ('watched-a', 42, '[]', '2026-01-02T03:04:05Z')`;
  await db.sql`insert into app.social_follower_hours (agent_id, hour, follower_count, polled_at)
    values ('watched-a', '2026-01-02T03:00:00Z', 42, '2026-01-02T03:04:05Z')`;
  await db.sql`select pg_notify('social_changed', 'watched-a')`;
  for (;;) {
    const again = await t.get("/v2/agents/watched-a/social-stats");
    if (again.body.data.asOf === null) {
      await new Promise((r) => setTimeout(r, 50));
      continue;
    }
    expect(again.body.data.asOf).toBe("2026-01-02T03:04:05.000Z");
    expect(t.check("/v2/agents/{agent}/social-stats", 200, again.body)).toEqual([]);
    break;
  }
  const history = await t.get("/v2/agents/watched-a/follower-history?window=all");
  expect(history.body.data.asOf).toBe("2026-01-02T03:04:05.000Z");
  expect(t.check("/v2/agents/{agent}/follower-history", 200, history.body)).toEqual([]);
  const perps = await t.get("/v2/agents/watched-a/perps");
  expect(perps.body.data).toMatchObject({ status: "not_connected", asOf: null });
});
