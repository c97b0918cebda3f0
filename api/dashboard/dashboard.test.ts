import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseDec } from "../../lib/agents/decimal.ts";
import { createAgent, rotateKey } from "../../lib/agents/keys.ts";
import { burnRate } from "../../lib/agents/read.ts";
import { featureAgent } from "../../lib/agents/records.ts";
import { insertAgentEvents } from "../../lib/events/store.ts";
import { createApp } from "../app.ts";
import { defaultApiSettings } from "../settings.ts";
import { requestAs } from "../testing/client.ts";
import { responseChecker, validateOpenApiDocument } from "../testing/openapi.ts";
import { startTestDatabase, type TestDatabase } from "../testing/postgres.ts";

// The dashboard writes and the reads that need no chain, over a real Postgres. Agents are
// registered through the real key issuer; their launch columns are set as the saga would.
// The full stack (indexed holdings, NAV job, burn rate) is test/dashboard/dashboard.test.ts.

const ADMIN = "operator-token-0123456789abcdef0123456789";
let db: TestDatabase;
let app: ReturnType<typeof createApp>;
let check: ReturnType<typeof responseChecker>;
type Agent = { agentId: string; apiKey: string; token: string };
const agents: Agent[] = [];
const addr = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

// biome-ignore lint/suspicious/noExplicitAny: bodies are checked by assertions and the OpenAPI schema
type Body = Record<string, any>;

async function call(method: string, path: string, o: { key?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  const res = await requestAs(app, path, {
    init: {
      method,
      headers,
      body:
        o.body === undefined
          ? undefined
          : typeof o.body === "string"
            ? o.body
            : JSON.stringify(o.body),
    },
  });
  return { status: res.status, body: (await res.json()) as Body };
}

/** Every answer is checked against the served OpenAPI document. */
async function checked(method: string, template: string, path: string, o = {}) {
  const r = await call(method, path, o);
  expect(check(template, method.toLowerCase(), r.status, r.body)).toEqual([]);
  return r;
}

const events = (agentId: string) =>
  db.sql<{ event_type: string; category: string; source: string; data: Body }[]>`
    select event_type, category, source, data from app.agent_events
    where agent_id = ${agentId} order by id`;

beforeAll(async () => {
  db = await startTestDatabase();
  app = createApp({
    logger: pino({ level: "silent" }),
    env: "test",
    sql: db.sql,
    settings: defaultApiSettings(),
    headBlock: async () => undefined,
    adminToken: ADMIN,
    launch: { launch: {} as never },
  });
  check = responseChecker((await (await app.request("/openapi.json")).json()) as never);
  for (let i = 1; i <= 6; i++) {
    const k = await createAgent(db.sql, { name: `Agent ${i}` });
    await db.sql`update app.agents set ticker = ${`AG${i}`}, description = 'An agent in a test.',
        image_url = 'https://img.example/a.png', token_address = ${addr(i)},
        wallet_address = ${addr(100 + i)}, treasury_address = ${addr(200 + i)},
        launched_at = now(), status = 'active'
      where agent_id = ${k.agentId}`;
    agents.push({ agentId: k.agentId, apiKey: k.apiKey, token: addr(i) });
  }
}, 60_000);
afterAll(() => db?.stop());

const A = () => agents[0] as Agent;
const B = () => agents[1] as Agent;

describe("OpenAPI", () => {
  it("documents every dashboard route in a valid 3.1 document", async () => {
    const doc = (await (await app.request("/openapi.json")).json()) as Body;
    const result = await validateOpenApiDocument(doc);
    expect(result.errors ?? []).toEqual([]);
    const ops = Object.entries(doc.paths as Record<string, object>).flatMap(([path, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
    );
    const t = "/v2/agents/{agent}";
    expect(ops).toEqual(
      expect.arrayContaining([
        `GET ${t}`,
        `PUT ${t}/persona`,
        `POST ${t}/apps`,
        `DELETE ${t}/apps/{appId}`,
        `PUT ${t}/burn-config`,
        `POST ${t}/wallets`,
        `DELETE ${t}/wallets/{chain}/{address}`,
        `GET ${t}/holdings`,
        `GET ${t}/nav-history`,
        `GET ${t}/burn-rate`,
        `GET ${t}/social-stats`,
        `GET ${t}/wallets`,
      ]),
    );
  });
});

describe("dashboard writes", () => {
  it("keys carry agent:write by default, and the agent writes its own persona", async () => {
    const [k] = await db.sql`select scopes from app.agent_keys where agent_id = ${A().agentId}`;
    expect(k?.scopes).toEqual(["launch:*", "agent:write"]);
    const persona = {
      name: "Ava",
      handle: "ava_agent",
      bio: "Writes notes for people.",
      links: [{ label: "site", url: "https://ava.example" }],
      imageUrl: "https://img.example/ava.png",
    };
    const r = await checked(
      "PUT",
      "/v2/agents/{agent}/persona",
      `/v2/agents/${A().token}/persona`,
      {
        key: A().apiKey,
        body: persona,
      },
    );
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ ...persona, updatedAt: expect.any(String) });
    const d = await checked("GET", "/v2/agents/{agent}", `/v2/agents/${A().token}`);
    expect(d.body.data.persona).toEqual(r.body.data);
    expect((await events(A().agentId)).map((e) => [e.event_type, e.category, e.source])).toEqual([
      ["persona.updated", "system", "dashboard-api"],
    ]);
  });

  it("refuses every write with another agent's key, a missing key, or a key without agent:write", async () => {
    const before = await events(A().agentId);
    const writes: [string, string, unknown][] = [
      ["PUT", "persona", { name: "Hijacked" }],
      ["POST", "apps", { name: "x", url: "https://x.example" }],
      ["PUT", "burn-config", { items: [] }],
      ["POST", "wallets", { chain: "bsc", address: addr(999), role: "other" }],
      ["DELETE", "apps/00000000-0000-4000-8000-000000000000", undefined],
      ["DELETE", `wallets/bsc/${addr(999)}`, undefined],
    ];
    for (const [method, path, body] of writes) {
      const url = `/v2/agents/${A().token}/${path}`;
      const other = await call(method, url, { key: B().apiKey, body });
      expect(other).toMatchObject({ status: 403, body: { ok: false, error: "not_authorized" } });
      expect((await call(method, url, { body })).body.error).toBe("AGENT_AUTH_MISSING");
      expect((await call(method, url, { key: "agk_nope", body })).body.error).toBe(
        "AGENT_AUTH_INVALID",
      );
    }
    await db.sql`update app.agent_keys set scopes = '{launch:*}' where agent_id = ${B().agentId}`;
    const noScope = await call("PUT", `/v2/agents/${B().token}/persona`, {
      key: B().apiKey,
      body: { name: "B" },
    });
    expect(noScope).toMatchObject({ status: 403, body: { error: "AGENT_SCOPE_FORBIDDEN" } });
    // A rotated key gets the default scopes again.
    const fresh = await rotateKey(db.sql, { agentId: B().agentId });
    B().apiKey = fresh.apiKey;
    expect(
      (
        await call("PUT", `/v2/agents/${B().token}/persona`, {
          key: fresh.apiKey,
          body: { name: "B" },
        })
      ).status,
    ).toBe(200);
    expect(await events(A().agentId)).toEqual(before);
    const [p] = await db.sql`select name from app.agent_personas where agent_id = ${A().agentId}`;
    expect(p?.name).toBe("Ava");
  });

  it("bad input is a 400 with details and changes nothing", async () => {
    const a = A();
    const snapshot = async () => ({
      persona: await db.sql`select * from app.agent_personas where agent_id = ${a.agentId}`,
      apps: await db.sql`select * from app.agent_apps where agent_id = ${a.agentId}`,
      burn: await db.sql`select * from app.agent_burn_items where agent_id = ${a.agentId}`,
      wallets: await db.sql`select * from app.agent_wallets where agent_id = ${a.agentId}`,
      events: await events(a.agentId),
    });
    const before = await snapshot();
    const bad: [string, string, unknown, string][] = [
      ["PUT", "persona", "not json", "(root)"],
      ["PUT", "persona", { name: "" }, "name"],
      ["PUT", "persona", { name: "ok", handle: "has space" }, "handle"],
      [
        "PUT",
        "persona",
        { name: "ok", links: [{ label: "x", url: "javascript:alert(1)" }] },
        "links.0.url",
      ],
      ["PUT", "persona", { name: "ok", extra: 1 }, "(root)"],
      ["POST", "apps", { name: "x", url: "ftp://x.example" }, "url"],
      [
        "POST",
        "apps",
        { name: "x", url: "https://x.example", revenueShareBps: 500 },
        "revenueShareBps",
      ],
      [
        "POST",
        "apps",
        { name: "x", url: "https://x.example", revenueAddress: "0x12" },
        "revenueAddress",
      ],
      [
        "PUT",
        "burn-config",
        { items: [{ provider: "openai", kind: "gpu", monthlyUsd: "1" }] },
        "items.0.kind",
      ],
      [
        "PUT",
        "burn-config",
        { items: [{ provider: "openai", kind: "compute", monthlyUsd: "1e3" }] },
        "items.0.monthlyUsd",
      ],
      [
        "PUT",
        "burn-config",
        { items: [{ provider: "openai", kind: "compute" }] },
        "items.0.monthlyUsd",
      ],
      [
        "PUT",
        "burn-config",
        { items: [{ provider: "openai", kind: "inference", usageBased: true, monthlyUsd: "5" }] },
        "items.0.monthlyUsd",
      ],
      ["POST", "wallets", { chain: "solana", address: addr(5), role: "other" }, "chain"],
      ["POST", "wallets", { chain: "bsc", address: addr(101), role: "other" }, "address"],
      ["DELETE", "apps/not-a-uuid", undefined, "appId"],
      ["DELETE", "wallets/bsc/0x12", undefined, "address"],
    ];
    for (const [method, path, body, at] of bad) {
      const r = await call(method, `/v2/agents/${a.token}/${path}`, { key: a.apiKey, body });
      expect(r.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(r.body.error).toBe("validation_failed");
      expect(r.body.details.map((d: { path: string }) => d.path)).toContain(at);
    }
    expect(
      (await call("PUT", "/v2/agents/0x12/persona", { key: a.apiKey, body: { name: "x" } })).status,
    ).toBe(400);
    expect(
      (await call("PUT", `/v2/agents/${addr(77)}/persona`, { key: a.apiKey, body: { name: "x" } }))
        .status,
    ).toBe(404);
    expect(await snapshot()).toEqual(before);
  });

  it("a persona handle is an X username: 1-15 letters, digits or _; longer is a 400 that says so", async () => {
    // The social poller asks X for the handle: one X refuses would be asked for every round.
    const a = await createAgent(db.sql, { name: "Handle agent" });
    const put = (handle: string) =>
      checked("PUT", "/v2/agents/{agent}/persona", `/v2/agents/${a.agentId}/persona`, {
        key: a.apiKey,
        body: { name: "Ava", handle },
      });
    for (const handle of ["a".repeat(16), "ava_agent_0123456789_long_name_x", "@ava_agent"]) {
      const r = await put(handle);
      expect(r.status, handle).toBe(400);
      expect(r.body.details).toEqual([
        { path: "handle", message: "must be an X username: 1-15 letters, digits or _, without @" },
      ]);
    }
    const stored = () =>
      db.sql`select handle from app.agent_personas where agent_id = ${a.agentId}`;
    expect(await stored()).toEqual([]);
    expect((await put("a".repeat(15))).status).toBe(200);
    expect(await stored()).toEqual([{ handle: "a".repeat(15) }]);
  });

  it("every body write checks the key before the body, and takes only application/json", async () => {
    const c = agents[2] as Agent;
    const writes: [string, string, string, unknown][] = [
      ["PUT", "persona", "/v2/agents/{agent}/persona", { name: "C" }],
      ["POST", "apps", "/v2/agents/{agent}/apps", { name: "x", url: "https://x.example" }],
      ["PUT", "burn-config", "/v2/agents/{agent}/burn-config", { items: [] }],
      [
        "POST",
        "wallets",
        "/v2/agents/{agent}/wallets",
        { chain: "bsc", address: addr(9), role: "other" },
      ],
    ];
    for (const [method, path, template, body] of writes) {
      const url = `/v2/agents/${c.token}/${path}`;
      expect(await call(method, url, { body: "{nope" })).toMatchObject({
        status: 401,
        body: { error: "AGENT_AUTH_MISSING" },
      });
      // What `curl -d '{...}'` sends: the form media type.
      const res = await requestAs(app, url, {
        init: {
          method,
          headers: {
            authorization: `Bearer ${c.apiKey}`,
            "content-type": "application/x-www-form-urlencoded",
          },
          body: JSON.stringify(body),
        },
      });
      const form = (await res.json()) as Body;
      expect({ status: res.status, error: form.error }).toEqual({
        status: 415,
        error: "unsupported_media_type",
      });
      expect(check(template, method.toLowerCase(), 415, form)).toEqual([]);
    }
    expect(await events(c.agentId)).toEqual([]);
  });

  it("apps, burn config and wallets: add, list, remove, each change in the feed", async () => {
    const a = A();
    const base = `/v2/agents/${a.token}`;
    const app1 = await checked("POST", "/v2/agents/{agent}/apps", `${base}/apps`, {
      key: a.apiKey,
      body: {
        name: "Notes",
        url: "https://notes.example",
        revenueAddress: addr(300).toUpperCase().replace("0X", "0x"),
        revenueShareBps: 2500,
      },
    });
    expect(app1.status).toBe(201);
    expect(app1.body.data.revenue).toEqual({ address: addr(300), shareBps: 2500 });
    await call("POST", `${base}/apps`, {
      key: a.apiKey,
      body: { name: "Chat", url: "https://chat.example" },
    });
    const burn = await checked("PUT", "/v2/agents/{agent}/burn-config", `${base}/burn-config`, {
      key: a.apiKey,
      body: {
        items: [
          { provider: "gpu-cloud", kind: "compute", monthlyUsd: "300.50" },
          { provider: "openai", kind: "inference", usageBased: true, label: "chat model" },
        ],
      },
    });
    expect(burn.body.data.items).toEqual([
      {
        provider: "gpu-cloud",
        kind: "compute",
        monthlyUsd: "300.5",
        usageBased: false,
        label: null,
      },
      {
        provider: "openai",
        kind: "inference",
        monthlyUsd: null,
        usageBased: true,
        label: "chat model",
      },
    ]);
    const perps = addr(400);
    const w = await checked("POST", "/v2/agents/{agent}/wallets", `${base}/wallets`, {
      key: a.apiKey,
      body: { chain: "hyperliquid", address: perps, role: "perps", label: "main" },
    });
    expect(w.body.data).toEqual({
      chain: "hyperliquid",
      address: perps,
      role: "perps",
      label: "main",
      builtIn: false,
    });

    const d = await checked("GET", "/v2/agents/{agent}", `/v2/agents/${a.token}`);
    expect(d.body.data.apps.map((x: Body) => x.name)).toEqual(["Notes", "Chat"]);
    expect(d.body.data.burnConfig).toEqual(burn.body.data.items);
    expect(d.body.data.wallets.map((x: Body) => [x.role, x.address, x.builtIn])).toEqual([
      ["agent", addr(101), true],
      ["treasury", addr(201), true],
      ["perps", perps, false],
    ]);
    expect(d.body.data).toMatchObject({
      identity: null,
      policy: null,
      policyStatus: "none",
      featured: false,
      featuredCount: 0,
    });

    // Another agent cannot delete A's app even through its own path.
    const b = B();
    expect(
      (
        await call("DELETE", `/v2/agents/${b.token}/apps/${app1.body.data.appId}`, {
          key: b.apiKey,
        })
      ).status,
    ).toBe(404);
    const del = await checked(
      "DELETE",
      "/v2/agents/{agent}/apps/{appId}",
      `${base}/apps/${app1.body.data.appId}`,
      { key: a.apiKey },
    );
    expect(del.body.data).toEqual({ appId: app1.body.data.appId, removed: true });
    expect(
      (await call("DELETE", `${base}/apps/${app1.body.data.appId}`, { key: a.apiKey })).status,
    ).toBe(404);
    const wdel = await checked(
      "DELETE",
      "/v2/agents/{agent}/wallets/{chain}/{address}",
      `${base}/wallets/hyperliquid/${perps}`,
      { key: a.apiKey },
    );
    expect(wdel.status).toBe(200);
    // The operator token writes too.
    expect(
      (await call("PUT", `${base}/persona`, { key: ADMIN, body: { name: "Ava" } })).status,
    ).toBe(200);

    expect((await events(a.agentId)).map((e) => [e.event_type, e.data.actor])).toEqual([
      ["persona.updated", "agent"],
      ["app.added", "agent"],
      ["app.added", "agent"],
      ["burn_config.updated", "agent"],
      ["wallet.registered", "agent"],
      ["app.removed", "agent"],
      ["wallet.removed", "agent"],
      ["persona.updated", "operator"],
    ]);
  });
});

describe("featured agent", () => {
  it("concurrent featurings leave exactly one featured agent, and counters count each", async () => {
    const picks = Array.from({ length: 30 }, (_, i) => agents[i % agents.length] as Agent);
    const changed = await Promise.all(
      picks.map((a) => featureAgent(db.sql, a.agentId, { kind: "operator", id: "test" })),
    );
    const [n] = await db.sql`select count(*)::int as n from app.agents where featured`;
    expect(n?.n).toBe(1);
    const [c] = await db.sql`select count(*)::int as n from app.agent_featurings`;
    expect(c?.n).toBe(changed.filter(Boolean).length);
    const list = await checked("GET", "/v2/agents", "/v2/agents?featured=true");
    expect(list.body.data.items).toHaveLength(1);
    const featured = list.body.data.items[0].tokenAddress;
    const d = await checked("GET", "/v2/agents/{agent}", `/v2/agents/${featured}`);
    // An agent without persona or identity: the nulls match the document too.
    const bare = await checked(
      "GET",
      "/v2/agents/{agent}",
      `/v2/agents/${(agents[4] as Agent).token}`,
    );
    expect(bare.body.data).toMatchObject({
      persona: null,
      identity: null,
      apps: [],
      burnConfig: [],
    });
    expect(d.body.data.featured).toBe(true);
    const [count] = await db.sql`select count(*)::int as n from app.agent_featurings f
      join app.agents a using (agent_id) where a.token_address = ${featured}`;
    expect(d.body.data.featuredCount).toBe(count?.n);
  });

  it("the admin API features by token address; a wrong token changes nothing", async () => {
    const target = agents[5] as Agent;
    const before = await db.sql`select agent_id from app.agents where featured`;
    const wrong = await requestAs(app, `/v2/admin/agents/${target.token}/feature`, {
      init: { method: "POST", headers: { authorization: "Bearer wrong" } },
    });
    expect(wrong.status).toBe(401);
    expect(await db.sql`select agent_id from app.agents where featured`).toEqual(before);
    const ok = await requestAs(app, `/v2/admin/agents/${target.token}/feature`, {
      init: { method: "POST", headers: { authorization: `Bearer ${ADMIN}` } },
    });
    expect(ok.status).toBe(200);
    const featured = await db.sql`select agent_id from app.agents where featured`;
    expect(featured.map((r) => r.agent_id)).toEqual([target.agentId]);
    const types = (await events(target.agentId)).map((e) => e.event_type);
    expect(types.at(-1)).toBe("agent.featured");
  });
});

describe("reads without a chain", () => {
  it("social stats are empty until the poller fills the cache; unknown agents 404, bad ids 400", async () => {
    const s = await checked(
      "GET",
      "/v2/agents/{agent}/social-stats",
      `/v2/agents/${A().token}/social-stats`,
    );
    expect(s.body.data).toEqual({ followerCount: null, posts: [], cachedAt: null, asOf: null });
    expect(
      (await checked("GET", "/v2/agents/{agent}/holdings", `/v2/agents/${addr(77)}/holdings`))
        .status,
    ).toBe(404);
    expect(
      (await checked("GET", "/v2/agents/{agent}/burn-rate", "/v2/agents/0x12/burn-rate")).status,
    ).toBe(400);
    const nav = await checked(
      "GET",
      "/v2/agents/{agent}/nav-history",
      `/v2/agents/${A().token}/nav-history?interval=5m`,
    );
    expect(nav.status).toBe(400);
    expect(nav.body.details[0].path).toBe("interval");
  });

  it("burn rate: fixed items, usage from 30 days of inference.spent, unconfigured providers, exact runway", async () => {
    const a = agents[2] as Agent;
    await call("PUT", `/v2/agents/${a.token}/burn-config`, {
      key: a.apiKey,
      body: {
        items: [
          { provider: "gpu-cloud", kind: "compute", monthlyUsd: "300" },
          { provider: "openai", kind: "inference", usageBased: true },
        ],
      },
    });
    const now = new Date();
    const ago = (days: number) => new Date(now.getTime() - days * 86_400_000);
    const spent = (id: string, provider: string, usd: unknown, at: Date) => ({
      agentId: a.agentId,
      eventType: "inference.spent",
      category: "apps" as const,
      source: "inference-cloud",
      sourceEventId: id,
      occurredAt: at,
      data: { provider, model: "m", usd, tokensIn: 10, tokensOut: 5 },
    });
    await insertAgentEvents({
      sql: db.sql,
      events: [
        spent("e1", "openai", "1.25", ago(1)),
        spent("e2", "openai", "2.500001", ago(29)),
        spent("e3", "openai", "1000", ago(31)), // outside the window
        spent("e4", "anthropic", "0.75", ago(2)), // not configured: still counted
        spent("e5", "openai", "not-a-number", ago(1)), // malformed: not counted
        spent("e6", "openai", 5, ago(1)), // a number, not a decimal string: not counted
      ],
    });
    const b = await burnRate(db.sql, a.agentId, parseDec("1000"), now);
    expect(b.items).toEqual([
      {
        provider: "gpu-cloud",
        kind: "compute",
        monthlyUsd: "300",
        usageBased: false,
        label: null,
        configured: true,
        usageEvents: null,
      },
      {
        provider: "openai",
        kind: "inference",
        monthlyUsd: "3.750001",
        usageBased: true,
        label: null,
        configured: true,
        usageEvents: 2,
      },
      {
        provider: "anthropic",
        kind: "inference",
        monthlyUsd: "0.75",
        usageBased: true,
        label: null,
        configured: false,
        usageEvents: 1,
      },
    ]);
    expect(b.monthlyUsd).toBe("304.500001");
    // 1000 * 30 / 304.500001 = 98.5221... rounded down to 2 places.
    expect(b.runwayDays).toBe("98.52");
    const none = await burnRate(db.sql, (agents[3] as Agent).agentId, parseDec("1000"), now);
    expect(none).toMatchObject({ items: [], monthlyUsd: "0", runwayDays: null });
  });
});
