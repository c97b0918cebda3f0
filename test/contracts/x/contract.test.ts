import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createXStandIn } from "../../../devnet/stand-ins/x/server.ts";
import { createXClient, createXReadClient, XRateLimited } from "../../../services/x/client.ts";
import { type ReplayServer, replayServer } from "../replay.ts";
import { type Recorded, recorded, shapeDiff } from "../shape.ts";

// Answers recorded out of the X API v2 reference and its OpenAPI (each fixture says which):
// our clients (twitter-api-v2 underneath) must read them and keep what they say, and the
// stand-in must answer in the same shapes. A change on either side fails here.

const fx = <B = Record<string, unknown>>(name: string) =>
  recorded<B>(new URL(".", import.meta.url), name);
const RESET = 1_900_000_000;

let server: ReplayServer;
let url = "";
let routes: Record<string, Recorded> = {};
beforeAll(async () => {
  server = await replayServer((req, res) => {
    const path = `${req.method} ${(req.url ?? "").split("?")[0]}`;
    const f = routes[path];
    const status = f?.response.status ?? 599;
    res.writeHead(status, {
      "content-type": status >= 400 ? "application/problem+json" : "application/json",
      ...(status === 429
        ? {
            "x-rate-limit-limit": "300",
            "x-rate-limit-remaining": "0",
            "x-rate-limit-reset": String(RESET),
          }
        : {}),
    });
    res.end(JSON.stringify(f?.response.body ?? { title: `no fixture for ${path}` }));
  });
  url = server.url;
});
afterAll(() => server.close());

const replay = (...names: string[]) => {
  routes = Object.fromEntries(
    names.map((n) => {
      const f = fx(n);
      return [`${f.request.method} ${f.request.path.split("?")[0]}`, f];
    }),
  );
};
const data = (name: string) => (fx(name).response.body as { data: unknown }).data;

describe("our clients read X's recorded answers", () => {
  it("the signed-in user, a post, a user's public metrics and timeline", async () => {
    replay("users-me", "post-tweet", "user-by-username", "user-tweets");
    const x = createXClient({ apiUrl: url, timeoutMs: 5_000 });
    expect(await x.me("user-token")).toEqual(data("users-me"));
    expect(await x.post("user-token", "Hello world!")).toEqual(data("post-tweet"));
    const read = createXReadClient({ apiUrl: url, bearerToken: "app", timeoutMs: 5_000 });
    const user = await read.userByUsername("XDevelopers");
    expect(user.public_metrics.followers_count).toBe(583423);
    const page = await read.userTweets("2244994945", { maxResults: 5 });
    expect(page).toEqual(fx("user-tweets").response.body);
  });

  it("a 401 is a rejection with status 401 (sign in again); a 429 waits until X's reset", async () => {
    routes = { "GET /2/users/me": fx("unauthorized") };
    const x = createXClient({ apiUrl: url, timeoutMs: 5_000 });
    await expect(x.me("expired")).rejects.toMatchObject({ kind: "rejected", status: 401 });
    routes = { "GET /2/users/by/username/XDevelopers": fx("rate-limited") };
    const read = createXReadClient({ apiUrl: url, bearerToken: "app", timeoutMs: 5_000 });
    const e = await read.userByUsername("XDevelopers").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(XRateLimited);
    expect((e as XRateLimited).reset).toEqual(new Date(RESET * 1000));
  });
});

describe("the stand-in answers in the recorded shapes", () => {
  let standIn = "";
  let close: () => void;
  const me = { id: "2244994945", username: "XDevelopers", name: "X Developers" };
  beforeAll(async () => {
    const app = createXStandIn({
      clientId: "c",
      clientSecret: "s",
      appToken: "app",
      serviceToken: "svc",
      defaultUser: me,
      rateLimits: { counts: { userByUsername: 2 } },
      log: pino({ level: "silent" }),
    });
    await new Promise<void>((resolve) => {
      const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (i: AddressInfo) => {
        standIn = `http://127.0.0.1:${i.port}`;
        resolve();
      });
      close = () => s.close();
    });
  });
  afterAll(() => close?.());
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const r = await fetch(`${standIn}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: (await r.json()) as unknown };
  };
  const same = (name: string, answer: { status: number; body: unknown }) => {
    const f = fx(name);
    expect(answer.status, name).toBe(f.response.status);
    expect(shapeDiff(answer.body, f.response.body, f.optional), name).toEqual([]);
  };

  it("users/me, a post, a user, a timeline, 401 and 429", async () => {
    await call("PUT", "/stand-in/accounts", "", { ...me, followers: 583423 });
    same("users-me", await call("GET", "/2/users/me?user.fields=profile_image_url", "svc"));
    same("post-tweet", await call("POST", "/2/tweets", "svc", { text: "Hello world!" }));
    await call("POST", `/stand-in/accounts/${me.username}/posts`, "", { text: "gm" });
    const byName = "/2/users/by/username/XDevelopers?user.fields=public_metrics";
    same("user-by-username", await call("GET", byName, "app"));
    const fields = "tweet.fields=created_at,referenced_tweets,public_metrics,author_id";
    same(
      "user-tweets",
      await call("GET", `/2/users/${me.id}/tweets?max_results=5&${fields}`, "app"),
    );
    same("unauthorized", await call("GET", "/2/users/me", "expired"));
    await call("GET", byName, "app");
    same("rate-limited", await call("GET", byName, "app"));
  });
});
