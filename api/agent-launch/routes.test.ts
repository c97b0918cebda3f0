import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../lib/agents/keys.ts";
import type { App } from "../app.ts";
import { type TestApp, testApp } from "../testing/app.ts";
import { requestAs } from "../testing/client.ts";
import { startTestDatabase, type TestDatabase } from "../testing/postgres.ts";

// The launch and its dry run up to the body: the order of the checks and the launch's own
// error object (api/AGENT.md "Errors"). The launch itself is test/launch/launch.suite.ts.

let db: TestDatabase;
let app: App;
let t: TestApp;

beforeAll(async () => {
  db = await startTestDatabase();
  t = await testApp(db, {}, "test", {
    launch: {
      launch: {
        sql: db.sql,
        enqueue: async () => {},
        trustedImageOrigins: [],
        deadlineMs: 1000,
        webUrl: "http://localhost:3000",
        launchpadTokenUrl: "http://localhost:3000/token",
        perKeyPerMinute: 3,
        // 0.1 BNB
        firstBuyMaxWei: 10n ** 17n,
      },
      preview: async () => {
        throw new Error("no preview in this test");
      },
    },
  });
  app = t.app;
}, 60_000);
afterAll(() => db?.stop());

const freshAgent = () => createAgent(db.sql, { name: "launch-test" });
const launchBody = (agentId: string) => ({
  agentId,
  name: "Test Agent",
  ticker: "TAGT",
  description: "An agent that launches its own token in a test",
  // http: refused by the image check, the first one after the body (no fetch in this test).
  imageUrl: "http://img.example/agent.png",
  chainId: 56,
});

describe.each(["/v2/agents/launch", "/v2/agents/launch/preview"])("POST %s", (path) => {
  async function post(o: { key?: string; type?: string; body?: string }) {
    const headers: Record<string, string> = {};
    if (o.key) headers.authorization = `Bearer ${o.key}`;
    if (o.type) headers["content-type"] = o.type;
    const res = await requestAs(app, path, { init: { method: "POST", headers, body: o.body } });
    // biome-ignore lint/suspicious/noExplicitAny: checked by assertions and the OpenAPI schema
    const body = (await res.json()) as Record<string, any>;
    expect(t.check(path, res.status, body, "post")).toEqual([]);
    return { status: res.status, body };
  }
  const json = "application/json";

  it("a valid body reaches the checks after it (here the image's)", async () => {
    const a = await freshAgent();
    const r = await post({
      key: a.apiKey,
      type: json,
      body: JSON.stringify(launchBody(a.agentId)),
    });
    expect(r).toMatchObject({
      status: 400,
      body: { ok: false, error: "INVALID_REQUEST", code: "IMAGE_URL_NOT_HTTPS" },
    });
  });

  it("a body that is not JSON, or not a LaunchRequest, is INVALID_REQUEST with one detail per problem", async () => {
    const a = await freshAgent();
    const notJson = await post({ key: a.apiKey, type: json, body: "{nope" });
    expect(notJson.status).toBe(400);
    expect(notJson.body).toMatchObject({ error: "INVALID_REQUEST", details: [{ path: "(root)" }] });
    const bad = await post({ key: a.apiKey, type: json, body: JSON.stringify({ ticker: "a b" }) });
    expect(bad.body.error).toBe("INVALID_REQUEST");
    expect(bad.body.details.map((d: { path: string }) => d.path).sort()).toEqual(
      ["agentId", "chainId", "description", "imageUrl", "name", "ticker"].sort(),
    );
  });

  it("a first buy above the service's cap, or not whole wei, is INVALID_REQUEST naming firstBuyWei, before any other agent's or image check", async () => {
    const other = await freshAgent();
    const cases: [unknown, RegExp][] = [
      ["100000000000000001", /at most 100000000000000000 \(0\.1 BNB\)/],
      ["0.1", /whole number of wei/],
      [100, /string/],
      ["-1", /whole number of wei/],
    ];
    for (const [firstBuyWei, message] of cases) {
      // A key of its own each (3 requests a minute here). Another agent's id and an http image:
      // refused for the first buy first all the same.
      const a = await freshAgent();
      const r = await post({
        key: a.apiKey,
        type: json,
        body: JSON.stringify({ ...launchBody(other.agentId), firstBuyWei }),
      });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("INVALID_REQUEST");
      expect(r.body.details).toEqual([
        { path: "firstBuyWei", message: expect.stringMatching(message) },
      ]);
    }
    // At the cap it passes on to the image check; nothing was stored for the refused ones.
    const a = await freshAgent();
    const atCap = await post({
      key: a.apiKey,
      type: json,
      body: JSON.stringify({ ...launchBody(a.agentId), firstBuyWei: "100000000000000000" }),
    });
    expect(atCap.body.code).toBe("IMAGE_URL_NOT_HTTPS");
    expect(await db.sql`select 1 from app.launch_sagas`).toHaveLength(0);
  });

  it("a body not sent as application/json is 415 in the launch's error object", async () => {
    const a = await freshAgent();
    // What `curl -d '{...}'` sends.
    const form = "application/x-www-form-urlencoded";
    const r = await post({
      key: a.apiKey,
      type: form,
      body: JSON.stringify(launchBody(a.agentId)),
    });
    expect(r.status).toBe(415);
    expect(r.body).toEqual({
      ok: false,
      error: "unsupported_media_type",
      detail: "send the body as JSON with Content-Type: application/json",
    });
    const none = await post({ key: a.apiKey });
    expect(none).toMatchObject({ status: 400, body: { error: "INVALID_REQUEST" } });
    expect(none.body.detail).toContain("no body");
  });

  it("checks the key, then counts the request, before it reads the body", async () => {
    expect(await post({ type: json, body: "{nope" })).toMatchObject({
      status: 401,
      body: { error: "AGENT_AUTH_MISSING" },
    });
    const form = await post({ key: "agk_unknown", type: "text/plain", body: "{nope" });
    expect(form).toMatchObject({ status: 401, body: { error: "AGENT_AUTH_INVALID" } });
    const a = await freshAgent();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await post({ key: a.apiKey, type: json })).status);
    // The fourth is over the budget of 3 however bad its body.
    expect(statuses).toEqual([400, 400, 400, 429]);
  });

  it("an Authorization header that is not `Bearer <key>` is 401 with WWW-Authenticate (RFC 6750)", async () => {
    const a = await freshAgent();
    const body = JSON.stringify(launchBody(a.agentId));
    for (const authorization of [a.apiKey, `Basic ${a.apiKey}`, "Bearer", `Bearer ${a.apiKey} x`]) {
      const res = await requestAs(app, path, {
        init: { method: "POST", headers: { authorization, "content-type": json }, body },
      });
      const got = (await res.json()) as Record<string, unknown>;
      expect(t.check(path, res.status, got, "post")).toEqual([]);
      expect({ status: res.status, error: got.error }).toEqual({
        status: 401,
        error: "AGENT_AUTH_INVALID",
      });
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer .*error="invalid_request"/);
    }
    // The other 401s name the scheme too; a valid Bearer key passes to the body's checks.
    const missing = await requestAs(app, path, { init: { method: "POST" } });
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer realm=/);
    const unknown = await post({ key: "agk_unknown", type: json, body });
    expect(unknown.status).toBe(401);
    expect((await post({ key: a.apiKey, type: json, body })).status).toBe(400);
  });

  it("a body over the limit is 413 once the key is checked", async () => {
    const a = await freshAgent();
    const big = JSON.stringify({ name: "x".repeat(300 * 1024) });
    expect(await post({ type: json, body: big })).toMatchObject({ status: 401 });
    expect(await post({ key: a.apiKey, type: json, body: big })).toMatchObject({
      status: 413,
      body: { ok: false, error: "payload_too_large" },
    });
  });
});
