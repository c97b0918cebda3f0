import { mkdtempSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestDatabase, type TestDatabase } from "../../api/testing/postgres.ts";
import { createXStandIn } from "../../devnet/stand-ins/x/server.ts";
import type { StartWorkerReturnType } from "../../jobs/worker.ts";
import { freePort } from "../../lib/local/net.ts";
import {
  killInsideCommit,
  pollersEnv,
  pollFailures,
  startPollersInProcess,
  until,
} from "./world.ts";

// The social poller against the X API v2 stand-in over HTTP (real Postgres, real pg-boss):
// followers into the social-stats cache, posts as tweet.posted once each, X's 429 honoured
// until its reset, and an X outage mid-poll recovered without loss or doubles; X cut inside a
// poll and a worker SIGKILLed inside the poll's commit leave the feed equal to X's history.

const BEARER = "app-bearer-token-123";
let db: TestDatabase;
let worker: StartWorkerReturnType | undefined;
let env: Record<string, string>;
const dir = mkdtempSync(join(tmpdir(), "launchpad-social-"));
let xUrl: string;
let port: number;
let server: ReturnType<typeof serve>;
const app = createXStandIn({
  clientId: "cid",
  clientSecret: "csecret-123",
  appToken: BEARER,
  log: pino({ level: "silent" }),
  // Basic's windows, shortened as the worker's budgets are (POLL_TIME_SCALE below).
  rateLimits: { tier: "basic", timeScale: 0.005 },
}).fetch;
const listen = () =>
  new Promise<void>((r) => {
    server = serve({ fetch: app, hostname: "127.0.0.1", port }, (i: AddressInfo) => {
      port = i.port;
      r();
    });
  });
const x = async (method: string, path: string, body?: unknown) => {
  const r = await fetch(`${xUrl}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await r.json()) as { data: { id: string } } & Record<string, number>;
};
const posts = async () =>
  db.sql<{ source_event_id: string; data: { reply: boolean; text: string } }[]>`
    select source_event_id, data from app.agent_events
    where agent_id = 'agent-s' and source = 'social-poller' order by source_event_id`;
const failures = () => pollFailures(db.sql, "social", "agent-s");
const cache = async () =>
  (
    await db.sql<{ follower_count: number; posts: { id: string }[] }[]>`
      select follower_count, posts from app.agent_social_cache where agent_id = 'agent-s'`
  )[0];

beforeAll(async () => {
  db = await startTestDatabase();
  port = await freePort();
  xUrl = `http://127.0.0.1:${port}`;
  await listen();
  await db.sql`insert into app.agents (agent_id, name, ticker, description, image_url)
    values ('agent-s', 'Agent S', 'SOC', 'social agent', 'https://example.com/s.png')`;
  await db.sql`insert into app.agent_personas (agent_id, name, handle) values ('agent-s', 'Agent S', 'Agent_S')`;
  await x("PUT", "/stand-in/accounts", { username: "agent_s", followers: 1234 });
  env = pollersEnv({
    dataDir: dir,
    databaseUrl: db.url,
    // 300 s x 0.005: a social tick every 1.5 s.
    scale: "0.005",
    extra: {
      X_OAUTH_URL: xUrl,
      X_API_URL: xUrl,
      X_CLIENT_ID: "cid",
      X_CLIENT_SECRET: "csecret-123",
      X_BEARER_TOKEN: BEARER,
    },
  });
  worker = await startPollersInProcess(env);
});
afterAll(async () => {
  await worker?.stop();
  server?.close();
  await db?.stop();
});

describe("social poller", () => {
  it("caches followers and turns posts and replies into tweet.posted once each", async () => {
    const first = await x("POST", "/stand-in/accounts/agent_s/posts", { text: "gm" });
    await x("POST", "/stand-in/accounts/agent_s/posts", {
      text: "thread reply",
      replyTo: first.data.id,
    });
    await until("two posts in the feed", async () => (await posts()).length === 2);
    expect((await posts()).map((p) => p.data.reply).sort()).toEqual([false, true]);
    expect(await cache()).toMatchObject({ follower_count: 1234 });
    await x("PUT", "/stand-in/accounts", { username: "agent_s", followers: 1300 });
    await x("POST", "/stand-in/accounts/agent_s/posts", { text: "third" });
    await until("the third post and new follower count", async () => {
      const c = await cache();
      return (await posts()).length === 3 && c?.follower_count === 1300 && c.posts.length === 3;
    });
    const [state] = await db.sql<{ cursor: { sinceId: string } }[]>`
      select cursor from app.poller_state where poller = 'social' and agent_id = 'agent-s'`;
    expect(state?.cursor.sinceId).toBe((await posts()).at(-1)?.source_event_id.slice(6));
  });

  it("waits for X's rate-limit reset after a 429 instead of asking again", async () => {
    // The user id is known since the first poll: a poll is one timeline request.
    await x("PUT", "/stand-in/rate-limit", { endpoint: "userTweets", inSeconds: 5 });
    await x("POST", "/stand-in/accounts/agent_s/posts", { text: "during the limit" });
    const notBefore = await until("the 429 recorded", async () => {
      const r = await db.sql<{ not_before: Date | null }[]>`
        select not_before from app.poller_state where poller = 'social' and agent_id = 'agent-s'`;
      return r[0]?.not_before ?? undefined;
    });
    const reset = notBefore.getTime();
    expect(reset).toBeGreaterThan(Date.now());
    // Ticks keep coming every 1.5 s, but none asks X again before the reset.
    const before = (await x("GET", "/stand-in/requests"))["userTweets:429"];
    await new Promise((r) => setTimeout(r, Math.max(0, reset - Date.now() - 300)));
    expect((await x("GET", "/stand-in/requests"))["userTweets:429"]).toBe(before);
    expect(before).toBe(1);
    await until("the post after the reset", async () => (await posts()).length === 4, 20_000);
  });

  it("an X outage mid-poll loses and doubles nothing", async () => {
    server.close();
    (server as unknown as { closeAllConnections: () => void }).closeAllConnections();
    await until("a failed poll", async () => (await failures()) > 0);
    await listen();
    await x("POST", "/stand-in/accounts/agent_s/posts", { text: "back" });
    await until("the post after the outage", async () => (await posts()).length === 5);
    await new Promise((r) => setTimeout(r, 3_000));
    const ids = (await posts()).map((p) => p.source_event_id);
    expect(new Set(ids).size).toBe(5);
    expect(ids.length).toBe(5);
  });

  it("X cut inside a poll and a worker killed inside the commit lose and double nothing", async () => {
    /** The feed X's whole history of the account must produce. */
    const history = async () =>
      (
        (await x("GET", "/stand-in/accounts/agent_s/posts")) as unknown as {
          data: { id: string }[];
        }
      ).data
        .map((p) => `tweet:${p.id}`)
        .sort();
    const stored = async () => (await posts()).map((p) => p.source_event_id).sort();
    // Inside a poll: the timeline request hangs, then X goes away.
    await x("PUT", "/stand-in/hang", { on: true });
    await x("POST", "/stand-in/accounts/agent_s/posts", { text: "while cut" });
    await until("a poll cut by the timeout", async () => (await failures()) > 0);
    server.close();
    (server as unknown as { closeAllConnections: () => void }).closeAllConnections();
    await x("PUT", "/stand-in/hang", { on: false }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 2_000));
    await listen();
    await x("PUT", "/stand-in/hang", { on: false });
    const want = await history();
    await until("the feed after X came back", async () => (await stored()).length >= want.length);
    expect(await stored()).toEqual(want);

    // A worker SIGKILLed inside the poll's commit: that poll leaves nothing; its successor
    // brings the feed to X's history, once each.
    await worker?.stop();
    worker = undefined;
    const late = await x("POST", "/stand-in/accounts/agent_s/posts", { text: "before the kill" });
    await killInsideCommit({
      env,
      poller: "social",
      fresh: [`tweet:${late.data.id}`],
      stored,
      history,
    });
  }, 180_000);
});
