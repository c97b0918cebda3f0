import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../lib/agents/keys.ts";
import type { App } from "../app.ts";
import { type TestApp, testApp } from "../testing/app.ts";
import { requestAs } from "../testing/client.ts";
import { startTestDatabase, type TestDatabase } from "../testing/postgres.ts";

// The operator key routes over a real Postgres: the token before the body, the bodies'
// validation, and the rotate's optional body. Keys in use: test/launch/launch.suite.ts.

const ADMIN = "operator-token-0123456789abcdef0123456789";
let db: TestDatabase;
let app: App;
let t: TestApp;

beforeAll(async () => {
  db = await startTestDatabase();
  t = await testApp(db, {}, "test", {
    adminToken: ADMIN,
    launch: { launch: {} as never },
  });
  app = t.app;
}, 60_000);
afterAll(() => db?.stop());

async function post(
  template: string,
  path: string,
  o: { token?: string | null; type?: string; body?: string } = {},
) {
  const headers: Record<string, string> = {};
  if (o.token !== null) headers.authorization = `Bearer ${o.token ?? ADMIN}`;
  if (o.type) headers["content-type"] = o.type;
  const res = await requestAs(app, path, { init: { method: "POST", headers, body: o.body } });
  // biome-ignore lint/suspicious/noExplicitAny: checked by assertions and the OpenAPI schema
  const body = (await res.json()) as Record<string, any>;
  expect(t.check(template, res.status, body, "post")).toEqual([]);
  return { status: res.status, body };
}
const json = "application/json";

describe("POST /v2/admin/agents", () => {
  const create = (o: Parameters<typeof post>[2]) => post("/v2/admin/agents", "/v2/admin/agents", o);

  it("registers an agent from a JSON body", async () => {
    const r = await create({ type: json, body: JSON.stringify({ name: "ops-test" }) });
    expect(r.status).toBe(201);
    expect(r.body.data.apiKey).toMatch(/^agk_/);
  });

  it("checks the operator token before the body", async () => {
    expect((await create({ token: null, type: json, body: "{nope" })).status).toBe(401);
    expect((await create({ token: "wrong", type: "text/plain", body: "{" })).status).toBe(401);
  });

  it("refuses a body that is not JSON, not the schema, absent, or not sent as JSON", async () => {
    expect(await create({ type: json, body: "{nope" })).toMatchObject({
      status: 400,
      body: { error: "validation_failed", details: [{ path: "(root)" }] },
    });
    const bad = await create({ type: json, body: JSON.stringify({ name: "", expiresAt: "soon" }) });
    expect(bad.body.details.map((d: { path: string }) => d.path)).toEqual(["name", "expiresAt"]);
    expect((await create({})).body.message).toContain("no body");
    const form = "application/x-www-form-urlencoded";
    expect(await create({ type: form, body: JSON.stringify({ name: "x" }) })).toMatchObject({
      status: 415,
      body: { error: "unsupported_media_type" },
    });
  });
});

describe("POST /v2/admin/agents/{agentId}/keys/rotate", () => {
  const template = "/v2/admin/agents/{agentId}/keys/rotate";

  it("takes no body, an empty one, or JSON with an expiry", async () => {
    const { agentId } = await createAgent(db.sql, { name: "rotate-test" });
    const path = `/v2/admin/agents/${agentId}/keys/rotate`;
    expect((await post(template, path)).status).toBe(200);
    expect((await post(template, path, { type: json, body: "" })).status).toBe(200);
    const later = "2030-01-02T03:04:05.000Z";
    const dated = await post(template, path, {
      type: json,
      body: JSON.stringify({ expiresAt: later }),
    });
    expect(dated).toMatchObject({ status: 200, body: { data: { expiresAt: later } } });
    expect(await post(template, path, { type: json, body: '{"expiresAt":1}' })).toMatchObject({
      status: 400,
      body: { details: [{ path: "expiresAt" }] },
    });
    expect((await post(template, path, { type: "text/plain", body: "{}" })).status).toBe(415);
  });
});
