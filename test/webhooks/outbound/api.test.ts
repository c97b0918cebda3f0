import { randomBytes } from "node:crypto";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../../api/app.ts";
import { defaultApiSettings } from "../../../api/settings.ts";
import { requestAs } from "../../../api/testing/client.ts";
import { responseChecker, validateOpenApiDocument } from "../../../api/testing/openapi.ts";
import { startTestDatabase, type TestDatabase } from "../../../api/testing/postgres.ts";
import { createAgent, type IssuedKey } from "../../../lib/agents/keys.ts";
import { deriveKey } from "../../../lib/crypto/seal.ts";

// A receiver in the public world (npm test): the check resolves it to a public IPv4 address.
const TRUSTED = "https://hooks.example.org";
const ADMIN = "operator-token-of-at-least-32-characters!";
let db: TestDatabase;
let app: App;
let check: ReturnType<typeof responseChecker>;
let a: IssuedKey;
let b: IssuedKey;

beforeAll(async () => {
  db = await startTestDatabase();
  app = createApp({
    logger: pino({ level: "silent" }),
    env: "test",
    sql: db.sql,
    settings: defaultApiSettings(),
    headBlock: async () => undefined,
    adminToken: ADMIN,
    webhooks: {
      secretsKey: deriveKey(randomBytes(32), "test"),
      trustedOrigins: [],
    },
  });
  check = responseChecker((await (await app.request("/openapi.json")).json()) as never);
  a = await createAgent(db.sql, { name: "A" });
  b = await createAgent(db.sql, { name: "B" });
});
afterAll(() => db?.stop());

/** Calls the API and checks the answer against the OpenAPI of (template, method, status). */
async function call(
  method: string,
  path: string,
  o: { key?: string; body?: unknown; template: string },
) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  const res = await requestAs(app, path, {
    init: { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) },
  });
  // biome-ignore lint/suspicious/noExplicitAny: bodies are checked against the OpenAPI schema
  const body = (await res.json()) as Record<string, any>;
  expect(check(o.template, method.toLowerCase(), res.status, body)).toEqual([]);
  return { status: res.status, body };
}

const T = {
  list: "/v2/agents/{agent}/webhooks",
  one: "/v2/agents/{agent}/webhooks/{subscriptionId}",
  rotate: "/v2/agents/{agent}/webhooks/{subscriptionId}/rotate-secret",
};

describe("webhook subscriptions API", () => {
  it("refuses a request without a key, with a bad key or with another agent's key", async () => {
    const path = `/v2/agents/${a.agentId}/webhooks`;
    expect((await call("GET", path, { template: T.list })).body.error).toBe("AGENT_AUTH_MISSING");
    expect((await call("GET", path, { template: T.list, key: "agk_nope" })).body.error).toBe(
      "AGENT_AUTH_INVALID",
    );
    const other = await call("POST", path, {
      template: T.list,
      key: b.apiKey,
      body: { url: `${TRUSTED}/hook` },
    });
    expect(other.status).toBe(403);
    expect(other.body.error).toBe("not_authorized");
    const [n] = await db.sql`select count(*)::int as n from app.webhook_subscriptions`;
    expect(n?.n).toBe(0);
  });

  it.each([
    ["http://example.com/hook", "https"],
    ["https://127.0.0.1/hook", "is not a public address"],
    ["https://10.1.2.3/hook", "is not a public address"],
    ["https://169.254.169.254/latest/meta-data", "is not a public address"],
    ["https://[::1]/hook", "is not a public address"],
    ["https://[fd00::1]/hook", "is not a public address"],
    ["https://[::ffff:10.1.2.3]/hook", "is not a public address"],
    ["https://[64:ff9b::a01:203]/hook", "is not a public address"],
    ["https://localhost/hook", "does not resolve to a public address"],
    // The world's names for 10.44.0.1 and 169.254.169.254, and a name that does not exist:
    // one wording for all three, so the answer does not tell which internal names resolve.
    [
      "https://internal.example.com/hook",
      "internal.example.com does not resolve to a public address",
    ],
    [
      "https://metadata.example.com/hook",
      "metadata.example.com does not resolve to a public address",
    ],
    [
      "https://nowhere.example.com/hook",
      "nowhere.example.com does not resolve to a public address",
    ],
    ["https://user:pw@example.com/hook", "credentials"],
    ["not a url", "not a URL"],
  ])("refuses %s and stores nothing", async (url, reason) => {
    const r = await call("POST", `/v2/agents/${a.agentId}/webhooks`, {
      template: T.list,
      key: a.apiKey,
      body: { url },
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("validation_failed");
    expect(r.body.message).toContain(reason);
    const [n] = await db.sql`select count(*)::int as n from app.webhook_subscriptions`;
    expect(n?.n).toBe(0);
  });

  it("subscribes a receiver whose name has only an IPv4 address, or only an IPv6 one", async () => {
    for (const url of ["https://hooks.example.org/v4", "https://hooks6.example.org/v6"]) {
      const r = await call("POST", `/v2/agents/${b.agentId}/webhooks`, {
        template: T.list,
        key: b.apiKey,
        body: { url },
      });
      expect(r.status, url).toBe(201);
      await call("DELETE", `/v2/agents/${b.agentId}/webhooks/${r.body.data.subscriptionId}`, {
        template: T.one,
        key: b.apiKey,
      });
    }
  });

  it("refuses malformed filters with the field named", async () => {
    const r = await call("POST", `/v2/agents/${a.agentId}/webhooks`, {
      template: T.list,
      key: a.apiKey,
      body: { url: `${TRUSTED}/x`, eventTypes: ["Not A Type"], categories: ["nope"] },
    });
    expect(r.status).toBe(400);
    expect(r.body.details.map((d: { path: string }) => d.path).sort()).toEqual([
      "categories.0",
      "eventTypes.0",
    ]);
  });

  it("creates, lists, reads, changes, rotates and deletes, showing the secret only on creation and rotation", async () => {
    const base = `/v2/agents/${a.agentId}/webhooks`;
    const created = await call("POST", base, {
      template: T.list,
      key: a.apiKey,
      body: { url: `${TRUSTED}/hook`, eventTypes: ["token.*"], description: "trading bot" },
    });
    expect(created.status).toBe(201);
    const sub = created.body.data;
    expect(sub.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(sub).toMatchObject({ agentId: a.agentId, enabled: true, eventTypes: ["token.*"] });

    // At rest the secret is sealed, never in clear.
    const [row] = await db.sql`select secret::text as s from app.webhook_subscriptions`;
    expect(row?.s).not.toContain(sub.secret.slice(6, 20));

    const listed = await call("GET", base, { template: T.list, key: a.apiKey });
    expect(listed.body.data.items.map((s: { subscriptionId: string }) => s.subscriptionId)).toEqual(
      [sub.subscriptionId],
    );
    expect(JSON.stringify(listed.body)).not.toContain("whsec_");

    const one = `${base}/${sub.subscriptionId}`;
    const patched = await call("PATCH", one, {
      template: T.one,
      key: a.apiKey,
      body: { eventTypes: null, categories: ["trading"], enabled: false },
    });
    expect(patched.body.data).toMatchObject({
      eventTypes: null,
      categories: ["trading"],
      enabled: false,
      disabledReason: "manual",
    });
    const badUrl = await call("PATCH", one, {
      template: T.one,
      key: a.apiKey,
      body: { url: "https://192.168.1.10/hook", enabled: true },
    });
    expect(badUrl.status).toBe(400);
    const read = await call("GET", one, { template: T.one, key: a.apiKey });
    expect(read.body.data).toMatchObject({ url: `${TRUSTED}/hook`, enabled: false });

    const rotated = await call("POST", `${one}/rotate-secret`, {
      template: T.rotate,
      key: a.apiKey,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(sub.secret);
    const overlap = Date.parse(rotated.body.data.previousSecretExpiresAt) - Date.now();
    expect(overlap).toBeGreaterThan(23 * 3600_000);

    // Another agent cannot see or touch it.
    expect((await call("GET", one, { template: T.one, key: b.apiKey })).status).toBe(403);
    const del = await call("DELETE", one, { template: T.one, key: a.apiKey });
    expect(del.body.data).toEqual({ subscriptionId: sub.subscriptionId, deleted: true });
    expect((await call("GET", one, { template: T.one, key: a.apiKey })).status).toBe(404);
  });

  it("keeps an agent to 10 subscriptions, and lets the operator manage any agent", async () => {
    const base = `/v2/agents/${b.agentId}/webhooks`;
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call("POST", base, { template: T.list, key: b.apiKey, body: { url: `${TRUSTED}/${i}` } }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    const refused = results.filter((r) => r.status === 409);
    expect(refused).toHaveLength(2);
    expect(refused[0]?.body.error).toBe("conflict");
    const listed = await call("GET", base, { template: T.list, key: ADMIN });
    expect(listed.body.data.items).toHaveLength(10);
    const missing = await call("GET", "/v2/agents/no-such-agent/webhooks", {
      template: T.list,
      key: ADMIN,
    });
    expect(missing.status).toBe(404);
  });

  it("takes the agent's token address as every other agent route does, or its id", async () => {
    const token = "0x00000000000000000000000000000000000a11ce";
    await db.sql`update app.agents set token_address = ${token} where agent_id = ${a.agentId}`;
    const byToken = `/v2/agents/${token}/webhooks`;
    const created = await call("POST", byToken, {
      template: T.list,
      key: a.apiKey,
      body: { url: `${TRUSTED}/by-token` },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.subscriptionId;
    // The same subscription, read by the agent id and by the (checksummed) token address.
    const viaId = await call("GET", `/v2/agents/${a.agentId}/webhooks/${id}`, {
      template: T.one,
      key: a.apiKey,
    });
    expect(viaId.body.data.url).toBe(`${TRUSTED}/by-token`);
    const viaToken = await call(
      "GET",
      `/v2/agents/${token.toUpperCase().replace("0X", "0x")}/webhooks/${id}`,
      {
        template: T.one,
        key: a.apiKey,
      },
    );
    expect(viaToken.body.data.subscriptionId).toBe(id);
    // Another agent's key on this agent's token is still refused, and the operator gets in.
    const other = await call("GET", byToken, { template: T.list, key: b.apiKey });
    expect(other.status).toBe(403);
    const op = await call("DELETE", `${byToken}/${id}`, { template: T.one, key: ADMIN });
    expect(op.status).toBe(200);
    const [n] = await db.sql`select count(*)::int as n from app.webhook_subscriptions
      where agent_id = ${a.agentId} and url = ${`${TRUSTED}/by-token`}`;
    expect(n?.n).toBe(0);
  });

  it("documents every webhook route in the OpenAPI", async () => {
    const doc = (await (await app.request("/openapi.json")).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const validation = await validateOpenApiDocument(doc);
    expect(validation.errors ?? []).toEqual([]);
    expect(validation.valid).toBe(true);
    const routes = Object.entries(doc.paths)
      .filter(([p]) => p.includes("/webhooks/") || p.endsWith("/webhooks"))
      .filter(([p]) => p.startsWith("/v2/agents/"))
      .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`))
      .sort();
    expect(routes).toEqual([
      "DELETE /v2/agents/{agent}/webhooks/{subscriptionId}",
      "GET /v2/agents/{agent}/webhooks",
      "GET /v2/agents/{agent}/webhooks/{subscriptionId}",
      "GET /v2/agents/{agent}/webhooks/{subscriptionId}/deliveries",
      "PATCH /v2/agents/{agent}/webhooks/{subscriptionId}",
      "POST /v2/agents/{agent}/webhooks",
      "POST /v2/agents/{agent}/webhooks/{subscriptionId}/deliveries/{deliveryId}/redeliver",
      "POST /v2/agents/{agent}/webhooks/{subscriptionId}/rotate-secret",
      "POST /v2/agents/{agent}/webhooks/{subscriptionId}/test",
    ]);
  });
});
