import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../api/app.ts";
import { defaultApiSettings } from "../../api/settings.ts";
import { requestAs } from "../../api/testing/client.ts";
import { responseChecker, validateOpenApiDocument } from "../../api/testing/openapi.ts";
import { startTestDatabase, type TestDatabase } from "../../api/testing/postgres.ts";
import { drainInboxBatch, failedWebhooks, retryWebhook } from "../../jobs/events/consumer.ts";
import { signWebhookBody } from "../../lib/webhooks/inbound/signature.ts";

// The inbound webhooks, the consumer and the feed endpoints in-process over a real Postgres.
// The consumer is called as its pg-boss job calls it; test/events/kill.test.ts runs it as a
// real worker process.

const secrets = {
  steward: "steward-secret-0123456789",
  cloud: "cloud-secret-0123456789abc",
  codeHost: "code-host-secret-0123456789",
  agentEvents: "agent-events-secret-012345",
};
const ADMIN = "operator-token-".padEnd(40, "x");
const TOKEN = `0x${"ab".repeat(20)}`;
const OTHER = `0x${"cd".repeat(20)}`;

let db: TestDatabase;
let app: App;
let check: ReturnType<typeof responseChecker>;

beforeAll(async () => {
  db = await startTestDatabase();
  await db.sql`insert into app.agents (agent_id, name, token_address) values
    ('agent-a', 'A', ${TOKEN}), ('agent-b', 'B', ${OTHER})`;
  app = createApp({
    logger: pino({ level: "silent" }),
    env: "test",
    sql: db.sql,
    settings: defaultApiSettings(),
    headBlock: async () => undefined,
    adminToken: ADMIN,
    events: { webhookSecrets: secrets },
  });
  check = responseChecker((await (await app.request("/openapi.json")).json()) as never);
}, 60_000);
afterAll(() => db?.stop());

let seq = 0;
const prMerged = (over: Record<string, unknown> = {}) => ({
  sourceEventId: `gh-${++seq}`,
  eventType: "pr.merged",
  occurredAt: new Date(Date.UTC(2026, 10, 1, 12, 0, seq)).toISOString(),
  agentId: "agent-a",
  data: {
    repo: "acme/agent",
    number: seq,
    title: `Change ${seq}`,
    url: `https://git.example/pr/${seq}`,
  },
  ...over,
});

async function post(
  path: string,
  body: unknown,
  o: { secret?: string; header?: string; t?: number } = {},
) {
  const raw = typeof body === "string" ? body : JSON.stringify(body);
  const header =
    o.header ?? signWebhookBody({ secrets: [o.secret ?? secrets.codeHost], body: raw, t: o.t });
  const res = await app.request(`/v2/webhooks/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-webhook-signature": header },
    body: raw,
  });
  const json = (await res.json()) as Record<string, unknown>;
  expect(check(`/v2/webhooks/${path}`, "post", res.status, json)).toEqual([]);
  return { status: res.status, body: json };
}

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await requestAs(app, path, { init: { headers } });
  // biome-ignore lint/suspicious/noExplicitAny: bodies are checked against the OpenAPI schema
  const body = (await res.json()) as any;
  const template = path
    .split("?")[0]
    ?.replace(/\/v2\/agents\/[^/]+/, "/v2/agents/{agent}") as string;
  expect(check(template, "get", res.status, body)).toEqual([]);
  return { status: res.status, body };
}

const inboxCount = async () =>
  Number((await db.sql`select count(*) as n from app.webhook_inbox`)[0]?.n);
const drain = async () => {
  while ((await drainInboxBatch(db.sql)).processed > 0) {}
};

describe("inbound webhooks", () => {
  it("a signed pr.merged is stored once and shows in the feed with its rendered text", async () => {
    const body = prMerged();
    expect(await post("code-host", body)).toMatchObject({
      status: 200,
      body: { ok: true, data: { received: true, duplicate: false } },
    });
    const again = await post("code-host", body);
    expect(again).toMatchObject({ status: 200, body: { data: { duplicate: true } } });
    expect(await inboxCount()).toBe(1);
    await drain();
    const { status, body: feed } = await get(
      `/v2/agents/${TOKEN.toUpperCase().replace("0X", "0x")}/events`,
    );
    expect(status).toBe(200);
    expect(feed.data.items).toHaveLength(1);
    expect(feed.data.items[0]).toMatchObject({
      eventType: "pr.merged",
      category: "apps",
      source: "code-host",
      sourceEventId: body.sourceEventId,
      occurredAt: body.occurredAt,
      visibility: "public",
      correlationId: null,
      text: `Merged PR #${body.data.number} in acme/agent: ${body.data.title}`,
    });
  });

  it("takes the token address as agentId, any case", async () => {
    const r = await post(
      "code-host",
      prMerged({ agentId: OTHER.toUpperCase().replace("0X", "0x") }),
    );
    expect(r.status).toBe(200);
    const [row] = await db.sql`select agent_id from app.webhook_inbox order by id desc limit 1`;
    expect(row?.agent_id).toBe("agent-b");
  });

  it("refuses bad signatures, stale or future timestamps and malformed headers, storing nothing", async () => {
    const before = await inboxCount();
    const body = JSON.stringify(prMerged());
    const now = Date.now();
    const cases = [
      { header: "" },
      { header: "v1=abc" },
      { header: `t=${now},v1=${"0".repeat(64)}` },
      { secret: secrets.cloud }, // another source's secret
      { t: now - 5 * 60_000 - 2_000 },
      { t: now + 5 * 60_000 + 2_000 },
      { header: `t=${now}` },
      { header: `t=${now},t=${now},v1=${"a".repeat(64)}` },
    ];
    for (const c of cases) {
      const r = await post("code-host", body, c);
      expect(r.status, JSON.stringify(c)).toBe(401);
      expect(r.body).toMatchObject({ ok: false, error: "not_authenticated" });
    }
    // A signature over different bytes (re-serialised JSON) does not match.
    const other = signWebhookBody({ secrets: [secrets.codeHost], body: `${body} ` });
    expect((await post("code-host", body, { header: other })).status).toBe(401);
    expect(await inboxCount()).toBe(before);
  });

  it("accepts any one matching v1 among several (secret rotation)", async () => {
    const raw = JSON.stringify(prMerged());
    const header = signWebhookBody({
      secrets: ["an-old-secret-0123456789", secrets.codeHost],
      body: raw,
    });
    expect((await post("code-host", raw, { header })).status).toBe(200);
  });

  it("refuses a body that fails its event type's schema, a type of another path and an unknown agent", async () => {
    const before = await inboxCount();
    const bad = [
      { body: "{not json", path: "(root)" },
      {
        body: prMerged({ data: { repo: "a/b", number: 1, url: "https://x.example" } }),
        path: "data.title",
      },
      { body: prMerged({ occurredAt: "yesterday" }), path: "occurredAt" },
      { body: prMerged({ eventType: "credits.low" }), path: "eventType" },
      { body: prMerged({ agentId: "nobody" }), path: "agentId" },
      { body: prMerged({ agentId: `0x${"ef".repeat(20)}` }), path: "agentId" },
      { body: prMerged({ sourceEventId: "" }), path: "sourceEventId" },
      { body: prMerged({ sourceEventId: "inference.spent:agent-a:x" }), path: "sourceEventId" },
    ];
    for (const b of bad) {
      const r = await post("code-host", b.body);
      expect(r.status, b.path).toBe(400);
      expect(r.body).toMatchObject({ ok: false, error: "validation_failed" });
      expect((r.body.details as { path: string }[]).map((d) => d.path)).toContain(b.path);
    }
    const usd = await post(
      "cloud/inference",
      { ...prMerged(), eventType: "inference.spent", data: { provider: "p", usd: 0.5 } },
      { secret: secrets.cloud },
    );
    expect(usd.status).toBe(400);
    expect(await inboxCount()).toBe(before);
  });

  it("agent-events takes any pre-formed type, but not the indexer's", async () => {
    const ok = await post(
      "agent-events",
      {
        ...prMerged(),
        eventType: "deploy.finished",
        category: "apps",
        visibility: "hidden",
        correlationId: "c-1",
        data: { summary: "v2 live" },
      },
      { secret: secrets.agentEvents },
    );
    expect(ok.status).toBe(200);
    const chain = await post(
      "agent-events",
      { ...prMerged(), eventType: "trade.buy", data: {} },
      { secret: secrets.agentEvents },
    );
    expect(chain.status).toBe(400);
    await drain();
    const hidden = await get(`/v2/agents/${TOKEN}/events?visibility=hidden`);
    expect(hidden.body.data.items[0]).toMatchObject({
      eventType: "deploy.finished",
      category: "apps",
      correlationId: "c-1",
      text: "deploy finished: v2 live",
    });
  });

  it("declares every webhook with a discriminated union of its event types in /openapi.json", async () => {
    const raw = await (await app.request("/openapi.json")).json();
    const valid = await validateOpenApiDocument(raw);
    expect(valid.errors ?? []).toEqual([]);
    const doc = raw as {
      paths: Record<
        string,
        { post?: { requestBody: { content: Record<string, { schema: unknown }> } } }
      >;
    };
    for (const p of [
      "steward/policy",
      "steward/sign",
      "cloud/credits",
      "cloud/inference",
      "code-host",
      "agent-events",
    ]) {
      const schema = JSON.stringify(
        doc.paths[`/v2/webhooks/${p}`]?.post?.requestBody.content["application/json"]?.schema,
      );
      expect(schema?.includes(p === "agent-events" ? "anyOf" : "oneOf"), p).toBe(true);
    }
    expect(JSON.stringify(doc.paths["/v2/webhooks/agent-events"])).toContain("WebhookGenericEvent");
    const code = JSON.stringify(doc.paths["/v2/webhooks/code-host"]);
    for (const t of ["pr_opened", "pr_merged", "commit_pushed"]) {
      expect(code.includes(`WebhookEvent_${t}`), t).toBe(true);
    }
  });
});

describe("the consumer", () => {
  it("rolls inference.spent up per agent and minute, counting each distinct delivery once", async () => {
    const minute = Date.UTC(2026, 10, 2, 9, 30);
    const spend = (id: string, usd: string, second: number) => ({
      sourceEventId: id,
      eventType: "inference.spent",
      occurredAt: new Date(minute + second * 1000).toISOString(),
      agentId: "agent-a",
      data: { provider: "cloud-x", model: "m-1", usd, tokensIn: 10, tokensOut: 5 },
    });
    for (const [id, usd, s] of [
      ["inf-1", "0.10", 1],
      ["inf-2", "0.25", 20],
      ["inf-1", "0.10", 1],
    ] as const) {
      expect(
        (await post("cloud/inference", spend(id, usd, s), { secret: secrets.cloud })).status,
      ).toBe(200);
    }
    await drain();
    // A delivery for the same minute after its row exists, and its redelivery.
    for (const id of ["inf-3", "inf-3"]) {
      await post("cloud/inference", spend(id, "0.005", 59), { secret: secrets.cloud });
    }
    // And one in the next minute.
    await post("cloud/inference", spend("inf-4", "1", 61), { secret: secrets.cloud });
    await drain();
    const { body } = await get(`/v2/agents/${TOKEN}/events?eventType=inference.spent`);
    expect(body.data.items.map((i: { data: unknown }) => i.data)).toEqual([
      expect.objectContaining({ usd: "1", deliveries: 1 }),
      expect.objectContaining({
        usd: "0.355",
        deliveries: 3,
        tokensIn: 30,
        tokensOut: 15,
        providers: ["cloud-x"],
      }),
    ]);
    expect(body.data.items[1].text).toBe(
      "Spent $0.3550 on inference (30 in / 15 out tokens) over 3 calls",
    );
  });

  it("sends a poison row to the dead letter without holding up the rest", async () => {
    await db.sql`insert into app.webhook_inbox (source, source_event_id, event_type, payload, agent_id)
      values ('steward', 'legacy-1', 'policy.applied', ${db.sql.json({ agentId: "gone", occurredAt: "2026-11-01T00:00:00Z", data: {} })}, null)`;
    await post("code-host", prMerged({ sourceEventId: "after-poison" }));
    for (let i = 0; i < 3; i++) await drainInboxBatch(db.sql);
    const [good] =
      await db.sql`select count(*)::int as n from app.agent_events where source_event_id = 'after-poison'`;
    expect(good?.n).toBe(1);
    const failed = await failedWebhooks(db.sql);
    expect(failed).toEqual([
      expect.objectContaining({
        sourceEventId: "legacy-1",
        attempts: 3,
        lastError: "agent gone is unknown",
      }),
    ]);
    expect(await drainInboxBatch(db.sql)).toEqual({ processed: 0, failed: 0 });
    // Fixed by the operator (the agent now exists) and retried: it goes through.
    await db.sql`insert into app.agents (agent_id, name) values ('gone', 'Gone')`;
    await db.sql`update app.webhook_inbox set agent_id = 'gone' where source_event_id = 'legacy-1'`;
    expect(await retryWebhook(db.sql, failed[0]?.id as string)).toBe(true);
    await drain();
    expect(await failedWebhooks(db.sql)).toEqual([]);
  });
});
