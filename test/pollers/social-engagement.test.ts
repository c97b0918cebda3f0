import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../api/app.ts";
import { defaultApiSettings } from "../../api/settings.ts";
import { requestAs } from "../../api/testing/client.ts";
import { responseChecker } from "../../api/testing/openapi.ts";
import { startTestDatabase, type TestDatabase } from "../../api/testing/postgres.ts";
import { createXStandIn } from "../../devnet/stand-ins/x/server.ts";
import { pollSocialAgent } from "../../jobs/pollers/social.ts";
import { SOCIAL_CHANGED_CHANNEL } from "../../lib/pollers/sources.ts";
import { createXReadClient } from "../../services/x/client.ts";

// what: Engagement of posts and the follower series, from the social poller (X API v2 stand-in over HTTP, real Postgres) to GET /v2/agents/{agent}/social-stats and /follower-history: each post's likes, replies, reposts, quotes and impressions equal what X's timeline answers with tweet.fields=public_metrics, re-read for posts already seen; the follower series is each hour's last count; a bad window is a 400

const BEARER = "app-bearer-token-engagement";
let db: TestDatabase;
let server: ReturnType<typeof serve>;
let xUrl: string;
let app: ReturnType<typeof createApp>;
let check: ReturnType<typeof responseChecker>;
// biome-ignore lint/suspicious/noExplicitAny: bodies are checked by assertions and the OpenAPI schema
type Body = Record<string, any>;

const x = async (method: string, path: string, body?: unknown) => {
  const r = await fetch(`${xUrl}${path}`, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${BEARER}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(r.ok).toBe(true);
  return (await r.json()) as Body;
};
const poll = () =>
  pollSocialAgent(
    {
      sql: db.sql,
      x: createXReadClient({ apiUrl: xUrl, bearerToken: BEARER, timeoutMs: 5_000 }),
      log: pino({ level: "silent" }),
    },
    "agent-e",
  );
async function get(template: string, path: string) {
  const res = await requestAs(app, path);
  const body = (await res.json()) as Body;
  expect(check(template, "get", res.status, body)).toEqual([]);
  return { status: res.status, body };
}
/**
 * A read after a poll: the API's answers follow the poller's notification (api/http/
 * poll-versions.ts), which reaches its listener a moment after the poll commits.
 */
async function getOnce(
  template: string,
  path: string,
  ready: (data: Body) => boolean,
): Promise<Body> {
  for (const until = Date.now() + 5_000; ; ) {
    const { body } = await get(template, path);
    if (ready(body.data) || Date.now() > until) return body.data;
    await new Promise((r) => setTimeout(r, 20));
  }
}
/** The timeline as X answers it to a caller asking for public_metrics, newest first. */
const timeline = async (userId: string) =>
  (await x("GET", `/2/users/${userId}/tweets?max_results=100&tweet.fields=public_metrics`))
    .data as Body[];
const asServed = (m: Body) => ({
  likeCount: m.like_count,
  replyCount: m.reply_count,
  repostCount: m.retweet_count,
  quoteCount: m.quote_count,
  impressionCount: m.impression_count,
});

let userId: string;
const ids: string[] = [];

beforeAll(async () => {
  db = await startTestDatabase();
  const standIn = createXStandIn({
    clientId: "cid",
    clientSecret: "csecret-123",
    appToken: BEARER,
    log: pino({ level: "silent" }),
  });
  await new Promise<void>((r) => {
    server = serve({ fetch: standIn.fetch, hostname: "127.0.0.1", port: 0 }, (i: AddressInfo) => {
      xUrl = `http://127.0.0.1:${i.port}`;
      r();
    });
  });
  await db.sql`insert into app.agents (agent_id, name, ticker, description, image_url)
    values ('agent-e', 'Agent E', 'ENG', 'social agent', 'https://example.com/e.png')`;
  await db.sql`insert into app.agent_personas (agent_id, name, handle) values ('agent-e', 'Agent E', 'agent_e')`;
  userId = (await x("PUT", "/stand-in/accounts", { username: "agent_e", followers: 100 })).data.id;
  for (const text of ["first", "second", "third"]) {
    ids.push((await x("POST", "/stand-in/accounts/agent_e/posts", { text })).data.id);
  }
  app = createApp({
    logger: pino({ level: "silent" }),
    env: "test",
    sql: db.sql,
    settings: defaultApiSettings(),
    headBlock: async () => undefined,
  });
  check = responseChecker((await (await app.request("/openapi.json")).json()) as never);
}, 60_000);
afterAll(async () => {
  server?.close();
  await db?.stop();
});

describe("post engagement and followers", () => {
  it("serves each post's counts as X's timeline gives them, and the hour's follower count", async () => {
    await x("PUT", `/stand-in/posts/${ids[0]}/metrics`, {
      like_count: 5,
      reply_count: 2,
      retweet_count: 1,
      impression_count: 300,
    });
    await poll();
    const { body } = await get(
      "/v2/agents/{agent}/social-stats",
      "/v2/agents/agent-e/social-stats",
    );
    const served = body.data.posts as Body[];
    const answered = await timeline(userId);
    expect(served.map((p) => p.id)).toEqual(answered.map((p) => p.id));
    for (const [i, p] of served.entries()) {
      expect(p.engagement).toMatchObject(asServed(answered[i]?.public_metrics));
    }
    expect(served.at(-1)?.engagement).toMatchObject({ likeCount: 5, impressionCount: 300 });
    const f = await get(
      "/v2/agents/{agent}/follower-history",
      "/v2/agents/agent-e/follower-history",
    );
    expect(f.body.data.points.map((p: Body) => p.followerCount)).toEqual([100]);
  });

  it("re-reads the counts of posts already seen, stores new posts once, and keeps the hour's last follower count", async () => {
    await x("PUT", `/stand-in/posts/${ids[0]}/metrics`, { like_count: 9, quote_count: 3 });
    await x("PUT", "/stand-in/accounts", { username: "agent_e", followers: 150 });
    ids.push((await x("POST", "/stand-in/accounts/agent_e/posts", { text: "fourth" })).data.id);
    await poll();
    const served = await getOnce(
      "/v2/agents/{agent}/social-stats",
      "/v2/agents/agent-e/social-stats",
      (d) => d.followerCount === 150,
    );
    expect(served.followerCount).toBe(150);
    const answered = await timeline(userId);
    expect(served.posts.map((p: Body) => p.id)).toEqual(answered.map((p) => p.id));
    for (const [i, p] of (served.posts as Body[]).entries()) {
      expect(p.engagement).toMatchObject(asServed(answered[i]?.public_metrics));
    }
    expect(served.posts.at(-1).engagement).toMatchObject({ likeCount: 9, quoteCount: 3 });
    const [n] = await db.sql<{ n: number }[]>`select count(*)::int as n from app.agent_events
      where agent_id = 'agent-e' and event_type = 'tweet.posted'`;
    expect(n?.n).toBe(4);
    const one = (
      await get(
        "/v2/agents/{agent}/follower-history",
        "/v2/agents/agent-e/follower-history?window=1d",
      )
    ).body.data;
    expect(one.points.map((p: Body) => p.followerCount)).toEqual([150]);
  });

  it("windows the follower series and refuses an unknown window", async () => {
    await db.sql`insert into app.social_follower_hours (agent_id, hour, follower_count, polled_at)
      values ('agent-e', date_trunc('hour', now() - interval '3 days'), 40, now() - interval '3 days')`;
    // Told as the poller tells a write (jobs/pollers/social.ts).
    await db.sql`select pg_notify(${SOCIAL_CHANGED_CHANNEL}, 'agent-e')`;
    const path = "/v2/agents/agent-e/follower-history";
    const t = "/v2/agents/{agent}/follower-history";
    const week = (await getOnce(t, `${path}?window=7d`, (d) => d.points.length === 2))
      .points as Body[];
    expect((await get(t, `${path}?window=1d`)).body.data.points).toHaveLength(1);
    expect(week.map((p) => p.followerCount)).toEqual([40, 150]);
    expect((await get(t, `${path}?window=all`)).body.data.points).toHaveLength(2);
    const bad = await get(t, `${path}?window=1y`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ ok: false, error: "validation_failed" });
  });
});
