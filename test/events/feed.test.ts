import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../api/app.ts";
import { defaultApiSettings } from "../../api/settings.ts";
import { type TestApp, testApp } from "../../api/testing/app.ts";
import { startTestDatabase, type TestDatabase } from "../../api/testing/postgres.ts";
import { categoryOf, KNOWN_TYPES } from "../../lib/events/catalog.ts";
import { RENDERED_TYPES, renderEvent } from "../../lib/events/render.ts";
import { insertAgentEvents, type NewAgentEvent } from "../../lib/events/store.ts";

// The read side: GET /v2/agents/{token}/events, /events/stats and /activity-trades over rows
// as the consumer and the chain projector write them.

const TOKEN = `0x${"12".repeat(20)}`;
const ADMIN = "operator-token-".padEnd(40, "y");
let db: TestDatabase;
let t: TestApp;

const at = (minute: number) => new Date(Date.UTC(2026, 10, 3, 10, minute));
const ev = (i: number, over: Partial<NewAgentEvent> = {}): NewAgentEvent => ({
  agentId: "feed-agent",
  eventType: "commit.pushed",
  category: "apps",
  source: "code-host",
  sourceEventId: `c-${i}`,
  occurredAt: at(i),
  data: {
    repo: "acme/agent",
    sha: `abcdef${String(i).padStart(4, "0")}`,
    message: `Commit ${i}\nbody`,
    url: "https://git.example/c",
  },
  ...over,
});

beforeAll(async () => {
  db = await startTestDatabase();
  await db.sql`insert into app.agents (agent_id, name, token_address) values ('feed-agent', 'Feed', ${TOKEN})`;
  const events: NewAgentEvent[] = [];
  for (let i = 0; i < 45; i++) events.push(ev(i));
  events.push(
    ev(50, {
      eventType: "trade.buy",
      category: "trading",
      source: "evm-indexer:bsc",
      sourceEventId: "56:0xaa:1",
      data: {
        venue: "curve",
        account: `0x${"9".repeat(40)}`,
        tokenAmount: "2500000000000000000000",
        bnbAmount: "100000000000000000",
      },
    }),
    ev(51, {
      eventType: "trade.sell",
      category: "trading",
      source: "evm-indexer:bsc",
      sourceEventId: "56:0xaa:2",
      data: {
        venue: "dex",
        account: `0x${"9".repeat(40)}`,
        tokenAmount: "1000000000000000000",
        bnbAmount: "1",
      },
    }),
    ev(52, {
      eventType: "policy.denied",
      category: "system",
      source: "steward",
      sourceEventId: "s-1",
      visibility: "internal",
      data: { reason: "over limit" },
    }),
    ev(53, {
      eventType: "session.opened",
      category: "system",
      source: "steward",
      sourceEventId: "s-2",
      visibility: "hidden",
      data: {},
    }),
  );
  await insertAgentEvents({ sql: db.sql, events });
  t = await testApp(db, {});
  // The app with the operator token: same database.
  opApp = createApp({
    logger: pino({ level: "silent" }),
    env: "test",
    sql: db.sql,
    settings: defaultApiSettings(),
    headBlock: async () => undefined,
    adminToken: ADMIN,
  });
}, 60_000);
afterAll(() => db?.stop());
let opApp: App;

const tpl = (path: string) =>
  path.split("?")[0]?.replace(/\/v2\/agents\/[^/]+/, "/v2/agents/{agent}") as string;
async function get(path: string) {
  const r = await t.get(path);
  expect(t.check(tpl(path), r.status, r.body)).toEqual([]);
  return r;
}

describe("GET /v2/agents/{agent}/events", () => {
  it("pages newest first with an opaque cursor, stable while new events arrive", async () => {
    const first = await get(`/v2/agents/${TOKEN}/events?source=code-host`);
    expect(first.body.data.items).toHaveLength(20);
    expect(first.body.data.items[0].sourceEventId).toBe("c-44");
    // Events arrive between pages: newer ones and one from the past inside page one's span.
    await insertAgentEvents({ sql: db.sql, events: [ev(100), ev(101, { occurredAt: at(30) })] });
    const seen: string[] = first.body.data.items.map(
      (i: { sourceEventId: string }) => i.sourceEventId,
    );
    let cursor = first.body.data.nextCursor;
    while (cursor) {
      const page = await get(
        `/v2/agents/${TOKEN}/events?source=code-host&limit=20&cursor=${cursor}`,
      );
      seen.push(...page.body.data.items.map((i: { sourceEventId: string }) => i.sourceEventId));
      cursor = page.body.data.nextCursor;
    }
    const expected = Array.from({ length: 45 }, (_, i) => `c-${44 - i}`);
    expect(seen).toEqual(expected);
    await db.sql`delete from app.agent_events where source_event_id in ('c-100', 'c-101')`;
  });

  it("filters by one or several event types, source and category", async () => {
    const both = await get(`/v2/agents/${TOKEN}/events?eventType=trade.buy,trade.sell`);
    expect(both.body.data.items.map((i: { eventType: string }) => i.eventType)).toEqual([
      "trade.sell",
      "trade.buy",
    ]);
    const repeated = await get(
      `/v2/agents/${TOKEN}/events?eventType=trade.buy&eventType=trade.sell`,
    );
    expect(repeated.body.data.items).toHaveLength(2);
    const chain = await get(`/v2/agents/${TOKEN}/events?source=evm-indexer:bsc&limit=100`);
    expect(chain.body.data.items).toHaveLength(2);
    const apps = await get(`/v2/agents/${TOKEN}/events?category=apps&limit=100`);
    expect(apps.body.data.items).toHaveLength(45);
    expect(apps.body.data.items[0].text).toBe("Pushed abcdef0 to acme/agent: Commit 44");
  });

  it("shows public by default, hidden on request, internal only to the operator", async () => {
    const pub = await get(`/v2/agents/${TOKEN}/events?limit=100`);
    expect(
      pub.body.data.items.every((i: { visibility: string }) => i.visibility === "public"),
    ).toBe(true);
    const hidden = await get(`/v2/agents/${TOKEN}/events?visibility=hidden`);
    expect(hidden.body.data.items.map((i: { eventType: string }) => i.eventType)).toEqual([
      "session.opened",
    ]);
    const internal = await get(`/v2/agents/${TOKEN}/events?visibility=internal`);
    expect(internal.status).toBe(401);
    expect(internal.body.error).toBe("not_authenticated");
    const wrong = await opApp.request(`/v2/agents/${TOKEN}/events?visibility=internal`, {
      headers: { authorization: "Bearer nope" },
    });
    expect(wrong.status).toBe(401);
    const op = await opApp.request(`/v2/agents/${TOKEN}/events?visibility=internal`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    const body = (await op.json()) as { data: { items: { eventType: string; text: string }[] } };
    expect(t.check("/v2/agents/{agent}/events", op.status, body)).toEqual([]);
    expect(body.data.items.map((i) => [i.eventType, i.text])).toEqual([
      ["policy.denied", "Signer denied a request: over limit"],
    ]);
  });

  it("answers 400 for a malformed address, cursor or filter and 404 for an unknown agent", async () => {
    for (const path of [
      "/v2/agents/0x123/events",
      `/v2/agents/${TOKEN}/events?cursor=bogus`,
      `/v2/agents/${TOKEN}/events?limit=101`,
      `/v2/agents/${TOKEN}/events?category=fun`,
      `/v2/agents/${TOKEN}/events?visibility=secret`,
      `/v2/agents/${TOKEN}/events?eventType=DROP TABLE`,
      "/v2/agents/0x123/activity-trades",
      "/v2/agents/0x123/events/stats",
    ]) {
      const r = await get(path);
      expect(r.status, path).toBe(400);
      expect(r.body.error).toBe("validation_failed");
    }
    for (const path of ["events", "activity-trades", "events/stats"]) {
      const r = await get(`/v2/agents/0x${"77".repeat(20)}/${path}`);
      expect(r.status, path).toBe(404);
    }
  });
});

describe("activity-trades and stats", () => {
  it("activity-trades is the trading subset with the feed's item shape", async () => {
    const r = await get(`/v2/agents/${TOKEN}/activity-trades?limit=1`);
    expect(r.body.data.items).toEqual([
      expect.objectContaining({
        eventType: "trade.sell",
        category: "trading",
        source: "evm-indexer:bsc",
        text: "0x9999…9999 sold 1 tokens for 0 BNB on the dex",
      }),
    ]);
    const next = await get(`/v2/agents/${TOKEN}/activity-trades?cursor=${r.body.data.nextCursor}`);
    expect(next.body.data).toEqual({
      items: [
        expect.objectContaining({
          eventType: "trade.buy",
          text: "0x9999…9999 bought 2500 tokens for 0.1 BNB on the curve",
        }),
      ],
      nextCursor: null,
    });
  });

  it("counts public events per type, source and category; every visibility for the operator", async () => {
    const r = await get(`/v2/agents/${TOKEN}/events/stats`);
    expect(r.body.data).toEqual({
      total: 47,
      byEventType: { "commit.pushed": 45, "trade.buy": 1, "trade.sell": 1 },
      bySource: { "code-host": 45, "evm-indexer:bsc": 2 },
      byCategory: { apps: 45, trading: 2 },
      visibility: ["public"],
    });
    const op = await opApp.request(`/v2/agents/${TOKEN}/events/stats`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    const body = (await op.json()) as {
      data: { total: number; byCategory: Record<string, number> };
    };
    expect(body.data.total).toBe(49);
    expect(body.data.byCategory.system).toBe(2);
  });
});

describe("the renderer", () => {
  it("has a template for every known type and a generic line for others", () => {
    expect(KNOWN_TYPES.filter((type) => !RENDERED_TYPES.includes(type))).toEqual([]);
    for (const type of KNOWN_TYPES) {
      expect(renderEvent(type, {}), type).not.toBe(type.replaceAll(/[._]/g, " "));
      expect(["trading", "apps", "treasury", "market", "system"]).toContain(categoryOf(type));
    }
    expect(renderEvent("deploy.finished", {})).toBe("deploy finished");
    expect(renderEvent("pr.merged", { repo: "a/b" })).toBe("Merged PR #? in a/b: ?");
  });
});
