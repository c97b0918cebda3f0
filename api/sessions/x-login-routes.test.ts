import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { serve } from "@hono/node-server";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createXStandIn } from "../../devnet/stand-ins/x/server.ts";
import { freePort } from "../../lib/local/net.ts";
import { createXClient } from "../../services/x/client.ts";
import { createApp } from "../app.ts";
import { startServer } from "../server.ts";
import { defaultApiSettings } from "../settings.ts";
import { responseChecker } from "../testing/openapi.ts";
import { startTestDatabase, type TestDatabase } from "../testing/postgres.ts";

// The OAuth round trip over real HTTP: our API server, the X stand-in, and curl as the
// browser (-c/-b cookie jar), one redirect at a time.

const run = promisify(execFile);
const WEB = "http://localhost:3000";
let db: TestDatabase;
let api: string;
let x: string;
let stop: (() => Promise<void>)[] = [];
let check: ReturnType<typeof responseChecker>;

beforeAll(async () => {
  db = await startTestDatabase();
  const xPort = await freePort();
  x = `http://127.0.0.1:${xPort}`;
  const standIn = serve({
    fetch: createXStandIn({
      clientId: "cid",
      clientSecret: "csecret-123",
      log: pino({ level: "silent" }),
    }).fetch,
    hostname: "127.0.0.1",
    port: xPort,
  });
  const port = await freePort();
  api = `http://127.0.0.1:${port}`;
  const app = createApp({
    logger: pino({ level: "silent" }),
    env: "test",
    sql: db.sql,
    settings: defaultApiSettings({ webUrl: WEB, apiUrl: api }),
    headBlock: async () => undefined,
    sessions: {
      oauth: {
        sql: db.sql,
        clientId: "cid",
        clientSecret: "csecret-123",
        oauthUrl: x,
        apiUrl: x,
        redirectUri: `${api}/auth/social/callback`,
        x: createXClient({ apiUrl: x, timeoutMs: 2000 }),
        timeoutMs: 2000,
      },
    },
  });
  const server = await startServer({
    app,
    host: "127.0.0.1",
    port,
    logger: pino({ level: "silent" }),
  });
  check = responseChecker((await (await fetch(`${api}/openapi.json`)).json()) as never);
  stop = [server.close, async () => void standIn.close()];
}, 60_000);
afterAll(async () => {
  for (const s of stop) await s();
  await db?.stop();
});

/** curl with a cookie jar: status, Location and body of one request (no redirect followed). */
async function curl(jar: string, url: string, extra: string[] = []) {
  const { stdout } = await run("curl", [
    "-s",
    "-c",
    jar,
    "-b",
    jar,
    "-H",
    "X-Forwarded-For: 10.1.1.1",
    "-w",
    "\n%{http_code} %{redirect_url}",
    ...extra,
    url,
  ]);
  const lines = stdout.split("\n");
  const [status, location] = (lines.pop() as string).split(" ");
  const text = lines.join("\n");
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: Number(status), location: location ?? "", body };
}

const jar = () => join(mkdtempSync(join(tmpdir(), "jar-")), "cookies.txt");

async function login(j: string) {
  const start = await curl(j, `${api}/auth/social/login`);
  expect(start.status).toBe(302);
  const authorize = new URL(start.location);
  expect(authorize.origin + authorize.pathname).toBe(`${x}/i/oauth2/authorize`);
  expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
  expect(authorize.searchParams.get("redirect_uri")).toBe(`${api}/auth/social/callback`);
  const consent = await curl(j, start.location);
  expect(consent.status).toBe(302);
  return consent.location;
}

describe("patron login over X OAuth 2.0 with PKCE", () => {
  it("round trip with curl -c/-b: login, consent, callback, me, logout", async () => {
    const j = jar();
    const callback = await login(j);
    expect(callback.startsWith(`${api}/auth/social/callback?`)).toBe(true);
    const done = await curl(j, callback);
    expect(done.status).toBe(302);
    expect(done.location).toBe(`${WEB}/`);
    const me = await curl(j, `${api}/auth/social/me`);
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      ok: true,
      data: {
        xHandle: "patron_one",
        xId: "1500000000000000001",
        displayName: "Patron One",
        avatarUrl: "https://pbs.twimg.com/profile_images/1/patron_one.png",
      },
    });
    expect(check("/auth/social/me", "get", 200, me.body)).toEqual([]);
    // The callback cannot be replayed: the state was used.
    const replay = await curl(j, callback);
    expect(replay.status).toBe(401);
    expect(check("/auth/social/callback", "get", 401, replay.body)).toEqual([]);
    const out = await curl(j, `${api}/auth/social/logout`, ["-X", "POST"]);
    expect(out.status).toBe(200);
    expect((await curl(j, `${api}/auth/social/me`)).status).toBe(401);
  });

  it("a second login of the same X account updates one patron", async () => {
    await fetch(`${x}/stand-in/user`, {
      method: "PUT",
      body: JSON.stringify({
        id: "1500000000000000001",
        username: "patron_renamed",
        name: "Renamed",
      }),
    });
    const j = jar();
    await curl(j, await login(j));
    const me = await curl(j, `${api}/auth/social/me`);
    expect(me.body.data).toMatchObject({ xHandle: "patron_renamed", avatarUrl: "" });
    const rows =
      await db.sql`select count(*)::int as n from app.patrons where x_id = '1500000000000000001'`;
    expect(rows[0]?.n).toBe(1);
  });

  it("refuses a callback from another browser, an expired state, a denial and a missing cookie", async () => {
    const mine = jar();
    const callback = await login(mine);
    // Another browser (no oauth_state cookie) presenting my callback URL: login CSRF refused.
    const other = await curl(jar(), callback);
    expect(other.status).toBe(401);
    expect(other.body.error).toBe("not_authenticated");
    // Expired state.
    const j = jar();
    const cb = await login(j);
    await db.sql`update app.oauth_states set expires_at = now() - interval '1 second'`;
    expect((await curl(j, cb)).status).toBe(401);
    // The user declined at X.
    const state = new URL(callback).searchParams.get("state") as string;
    const denied = await curl(
      mine,
      `${api}/auth/social/callback?state=${state}&error=access_denied`,
    );
    expect(denied.status).toBe(401);
    // No patron cookie.
    const none = await curl(jar(), `${api}/auth/social/me`);
    expect(none.status).toBe(401);
    expect(check("/auth/social/me", "get", 401, none.body)).toEqual([]);
    expect(
      (await curl(jar(), `${api}/auth/social/me`, ["-b", "service_session=forged"])).status,
    ).toBe(401);
  });

  it("refuses a cross-site logout", async () => {
    const j = jar();
    await curl(j, await login(j));
    const r = await curl(j, `${api}/auth/social/logout`, [
      "-X",
      "POST",
      "-H",
      "Origin: https://evil.example",
    ]);
    expect(r.status).toBe(403);
    expect((await curl(j, `${api}/auth/social/me`)).status).toBe(200);
  });

  it("stores the state hashed and the session hashed", async () => {
    const j = jar();
    const start = await curl(j, `${api}/auth/social/login`);
    const state = new URL(start.location).searchParams.get("state") as string;
    const rows = await db.sql`select state_hash from app.oauth_states`;
    expect(JSON.stringify(rows)).not.toContain(state);
    expect(rows.length).toBeGreaterThan(0);
  });
});
