import { Agent } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { pino } from "pino";
import { ApiResponseError, TwitterApi } from "twitter-api-v2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createXClient } from "../../../services/x/client.ts";
import { XAnswers } from "../../../services/x/protocol.ts";
import { authorizeUrlAt, routeTo } from "../../../services/x/sdk.ts";
import { createXStandIn } from "./server.ts";

// The stand-in judged by the real SDK, twitter-api-v2, as an app using it would: the OAuth 2.0
// PKCE login (its authorize link, its token exchange, its refresh), users/me, posting, and
// the app-token reads (user by username with public metrics, the user's timeline).

const CLIENT_ID = "sdk-client";
const CLIENT_SECRET = "sdk-secret";
const APP_TOKEN = "sdk-app-bearer";
const REDIRECT = "http://127.0.0.1:9/callback";
let url: string;
let close: () => void;
const settings = () => ({ plugins: [routeTo(url, 5_000)], httpAgent: new Agent() });

beforeAll(async () => {
  const app = createXStandIn({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    appToken: APP_TOKEN,
    log: pino({ level: "silent" }),
  });
  await new Promise<void>((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (i: AddressInfo) => {
      url = `http://127.0.0.1:${i.port}`;
      resolve();
    });
    close = () => server.close();
  });
});
afterAll(() => close?.());

/** The patron's browser: follows the SDK's authorize link, returns the callback's query. */
async function consent(link: string) {
  const r = await fetch(authorizeUrlAt(link, url), { redirect: "manual" });
  expect(r.status).toBe(302);
  return new URL(r.headers.get("location") as string).searchParams;
}

describe("X stand-in, driven by twitter-api-v2", () => {
  let user: TwitterApi;
  let refreshToken: string | undefined;

  it("logs a patron in with the SDK's PKCE flow (s256, its token request) and reads users/me", async () => {
    const app = new TwitterApi({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET }, settings());
    const link = app.generateOAuth2AuthLink(REDIRECT, {
      scope: ["tweet.read", "tweet.write", "users.read", "offline.access"],
    });
    expect(link.url).toContain("code_challenge_method=s256");
    const back = await consent(link.url);
    expect(back.get("state")).toBe(link.state);
    const login = await app.loginWithOAuth2({
      code: back.get("code") as string,
      codeVerifier: link.codeVerifier,
      redirectUri: REDIRECT,
    });
    expect(login.scope.sort()).toEqual([
      "offline.access",
      "tweet.read",
      "tweet.write",
      "users.read",
    ]);
    user = login.client;
    refreshToken = login.refreshToken;
    const me = await user.v2.me({ "user.fields": ["profile_image_url"] });
    expect(me.data.username).toBe("patron_one");
    expect(() => XAnswers.me.parse(me)).not.toThrow();
  });

  it("refuses a code used twice or a wrong verifier", async () => {
    const app = new TwitterApi({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET }, settings());
    const link = app.generateOAuth2AuthLink(REDIRECT, { scope: ["users.read"] });
    const code = (await consent(link.url)).get("code") as string;
    const wrong = await app
      .loginWithOAuth2({ code, codeVerifier: `${link.codeVerifier}x`, redirectUri: REDIRECT })
      .catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(ApiResponseError);
    expect((wrong as ApiResponseError).code).toBe(400);
  });

  it("posts a tweet with the user token; reads an account and its timeline with the app token", async () => {
    const posted = await user.v2.tweet("gm from the SDK");
    expect(posted.data.text).toBe("gm from the SDK");
    const listed = (await (await fetch(`${url}/stand-in/tweets`)).json()) as {
      data: { id: string }[];
    };
    expect(listed.data.map((t) => t.id)).toContain(posted.data.id);

    const put = (path: string, body: unknown, method = "PUT") =>
      fetch(`${url}${path}`, {
        method,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    await put("/stand-in/accounts", { username: "agent_sdk", followers: 42 });
    await put("/stand-in/accounts/agent_sdk/posts", { text: "hello" }, "POST");
    const reader = new TwitterApi(APP_TOKEN, settings());
    const found = await reader.v2.userByUsername("agent_sdk", {
      "user.fields": ["public_metrics"],
    });
    expect(found.data.public_metrics?.followers_count).toBe(42);
    expect(() => XAnswers.userByUsername.parse(found)).not.toThrow();
    const timeline = await reader.v2.userTimeline(found.data.id, {
      max_results: 5,
      "tweet.fields": ["created_at", "public_metrics", "author_id"],
    });
    expect(timeline.tweets.map((t) => t.text)).toEqual(["hello"]);
    expect(() => XAnswers.userTweets.parse(timeline.data)).not.toThrow();
  });

  it("refreshes the token (rotated), and an expired token asks to sign in again", async () => {
    const app = new TwitterApi({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET }, settings());
    const fresh = await app.refreshOAuth2Token(refreshToken as string);
    expect((await fresh.client.v2.me()).data.username).toBe("patron_one");
    await expect(app.refreshOAuth2Token(refreshToken as string)).rejects.toMatchObject({
      code: 400,
    });
    await fetch(`${url}/stand-in/expire-tokens`, { method: "POST" });
    await expect(fresh.client.v2.me()).rejects.toMatchObject({ code: 401 });
    // Our client says so as a refusal with status 401 (the sign-in's "sign in again").
    const ours = createXClient({ apiUrl: url, timeoutMs: 5_000 });
    await expect(ours.me(fresh.accessToken)).rejects.toMatchObject({
      kind: "rejected",
      status: 401,
    });
  });
});
