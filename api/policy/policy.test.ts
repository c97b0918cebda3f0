import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../lib/agents/keys.ts";
import type { App } from "../app.ts";
import { type TestApp, testApp } from "../testing/app.ts";
import { requestAs } from "../testing/client.ts";
import { startTestDatabase, type TestDatabase } from "../testing/postgres.ts";

// The policy save and the order route up to their bodies, over a real Postgres and an agent
// with no signer wallet: who may write, then the body. Signing and judging are in
// test/policy/policy.test.ts.

const ADMIN = "operator-token-0123456789abcdef0123456789";
const TOKEN = `0x${"7".repeat(40)}`;
let db: TestDatabase;
let app: App;
let t: TestApp;
let key: string;

beforeAll(async () => {
  db = await startTestDatabase();
  t = await testApp(db, {}, "test", {
    adminToken: ADMIN,
    launch: { launch: {} as never },
  });
  app = t.app;
  const a = await createAgent(db.sql, { name: "policy-test" });
  await db.sql`update app.agents set token_address = ${TOKEN} where agent_id = ${a.agentId}`;
  key = a.apiKey;
}, 60_000);
afterAll(() => db?.stop());

async function send(
  method: string,
  template: string,
  o: { auth?: string | null; type?: string; body?: unknown } = {},
) {
  const headers: Record<string, string> = {};
  if (o.auth !== null) headers.authorization = `Bearer ${o.auth ?? key}`;
  if (o.type ?? o.body !== undefined) headers["content-type"] = o.type ?? "application/json";
  const body = typeof o.body === "string" || o.body === undefined ? o.body : JSON.stringify(o.body);
  const path = template.replace("{agent}", TOKEN);
  const res = await requestAs(app, path, { init: { method, headers, body } });
  // biome-ignore lint/suspicious/noExplicitAny: checked by assertions and the OpenAPI schema
  const json = (await res.json()) as Record<string, any>;
  expect(t.check(template, res.status, json, method.toLowerCase())).toEqual([]);
  return { status: res.status, body: json };
}
const paths = (r: { body: { details?: { path: string }[] } }) =>
  r.body.details?.map((d) => d.path).sort();
const form = "application/x-www-form-urlencoded";

describe("PUT /v2/agents/{agent}/policy", () => {
  const put = (o: Parameters<typeof send>[2]) => send("PUT", "/v2/agents/{agent}/policy", o);
  const policy = {
    venues: { hyperliquid: { assets: ["BTC"] } },
    sides: "both",
    maxLeverage: 3,
    maxPositionUsd: "1000",
    maxOpenPositions: 3,
    dailyOpenBudgetUsd: "700",
  };

  it("a valid policy reaches the save (this agent has no wallet yet)", async () => {
    expect(await put({ body: policy })).toMatchObject({
      status: 404,
      body: { error: "not_found" },
    });
  });

  it("checks the key before the body", async () => {
    const r = await put({ auth: null, body: "{nope" });
    expect(r).toMatchObject({ status: 401, body: { error: "AGENT_AUTH_MISSING" } });
    expect((await put({ auth: "agk_nope", type: form, body: "x=1" })).status).toBe(401);
  });

  it("refuses a body that is not JSON, over a ceiling, or not sent as JSON", async () => {
    expect(paths(await put({ body: "{nope" }))).toEqual(["(root)"]);
    const over = await put({ body: { ...policy, maxLeverage: 6 } });
    expect(over.body.details).toEqual([
      { path: "maxLeverage", message: "exceeds the platform ceiling of 5" },
    ]);
    const sent = await put({ type: form, body: JSON.stringify(policy) });
    expect(sent).toMatchObject({ status: 415, body: { error: "unsupported_media_type" } });
  });
});

describe("POST /v2/agents/{agent}/orders", () => {
  const order = (o: Parameters<typeof send>[2]) => send("POST", "/v2/agents/{agent}/orders", o);
  const perps = { venue: "hyperliquid", asset: "BTC", side: "long", size: "0.01" };

  it("a valid order reaches the wallet check (this agent has none)", async () => {
    expect(await order({ body: perps })).toMatchObject({
      status: 404,
      body: { error: "not_found" },
    });
  });

  it("settles who may trade before the body: no key 401, the operator 403", async () => {
    expect((await order({ auth: null, body: "{nope" })).status).toBe(401);
    expect(await order({ auth: ADMIN, body: "{nope" })).toMatchObject({
      status: 403,
      body: { error: "not_authorized" },
    });
  });

  it("names each problem as the schema of the body's venue sees it", async () => {
    expect(paths(await order({ body: { ...perps, side: "up", size: "1e3" } }))).toEqual([
      "side",
      "size",
    ]);
    // The spot venue with a perps order: the spot order's fields are what is missing.
    const spot = await order({ body: { ...perps, venue: "bsc-dex-v2" } });
    expect(paths(spot)).toEqual(["(root)", "amount", "side", "token"]);
    expect(paths(await order({ body: "{nope" }))).toEqual(["(root)"]);
    expect((await order({})).body.message).toContain("no body");
  });

  it("refuses an order not sent as JSON", async () => {
    const sent = await order({ type: form, body: JSON.stringify(perps) });
    expect(sent).toMatchObject({ status: 415, body: { error: "unsupported_media_type" } });
  });
});
