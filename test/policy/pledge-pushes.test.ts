import { randomBytes } from "node:crypto";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../api/app.ts";
import { startServer } from "../../api/server.ts";
import { defaultApiSettings } from "../../api/settings.ts";
import { startTestDatabase, type TestDatabase } from "../../api/testing/postgres.ts";
import { attachWebSocket } from "../../api/ws/bridge.ts";
import { startPledgeBindWorker } from "../../jobs/policy/pledge-worker.ts";
import { startOutboundDispatcher } from "../../jobs/webhooks/outbound/dispatcher.ts";
import { createAgent } from "../../lib/agents/keys.ts";
import { deriveKey } from "../../lib/crypto/seal.ts";
import { createSql, type Sql } from "../../lib/db/client.ts";
import { outboundTiming } from "../../lib/webhooks/outbound/timing.ts";
import { startReceiver, verifyStandardWebhook } from "../webhooks/outbound/receiver.ts";
import { WsClient } from "../ws/client.ts";

// Issue 51 item 3, the pushes: each save of an agent's sell pledge and each loosening that binds
// when its delay ends reach the agent's WebSocket channel and its outbound webhooks, the
// loosening exactly once however many workers look for it and however often they restart. The
// API over HTTP with its WebSocket bridge, the outbound dispatcher delivering to a receiver in
// the public world, the worker's pledge round, all on one Postgres; no chain (a save needs none).

const DAY = 86_400_000;
const KEY = deriveKey(randomBytes(32), "test");
let db: TestDatabase;
let apiUrl: string;
const clock = { offsetMs: 0 };
const stops: (() => Promise<unknown>)[] = [];
let agent: { agentId: string; apiKey: string };
const TOKEN = `0x${"5e".repeat(20)}`;

beforeAll(async () => {
  db = await startTestDatabase();
  const log = pino({ level: "silent" });
  const app = createApp({
    logger: log,
    env: "test",
    sql: db.sql,
    settings: defaultApiSettings({ rateLimit: { unauthenticated: 0, authenticated: 0 } }),
    headBlock: async () => undefined,
    webhooks: { secretsKey: KEY, trustedOrigins: [] },
    policy: { now: () => new Date(Date.now() + clock.offsetMs) },
  });
  const server = await startServer({ app, host: "127.0.0.1", port: 0, logger: log });
  const ws = await attachWebSocket({
    server: server.server,
    sql: db.sql,
    viewsSchema: "onchain",
    trustProxy: 0,
    logger: log,
  });
  const address = server.server.address() as { port: number };
  apiUrl = `http://127.0.0.1:${address.port}`;
  stops.push(server.close, ws.close);
  const dispatcher = await startOutboundDispatcher({
    sql: db.sql,
    log,
    secretsKey: KEY,
    trustedOrigins: [],
    timing: outboundTiming(0.01),
    headBlock: async () => 0n,
  });
  stops.push(dispatcher.stop);
  agent = await createAgent(db.sql, { name: "pledging" });
  await db.sql`update app.agents set token_address = ${TOKEN}, launched_at = now()
    where agent_id = ${agent.agentId}`;
}, 60_000);
afterAll(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => {});
  await db?.stop();
});

const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${apiUrl}${path}`, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${agent.apiKey}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: API bodies, read by the assertions
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};
const pledge = (terms: Record<string, unknown>) =>
  call("PUT", `/v2/agents/${agent.agentId}/pledge`, terms);

describe("the sell pledge's pushes", () => {
  it("a save, and a loosening once it binds, reach the agent's socket and webhooks, the loosening once", async () => {
    const rx = await startReceiver();
    stops.push(rx.close);
    const sub = await call("POST", `/v2/agents/${agent.agentId}/webhooks`, {
      url: `${rx.origin}/pledge`,
      eventTypes: ["pledge.*"],
    });
    expect(sub.status, JSON.stringify(sub.body)).toBe(201);
    const socket = await WsClient.open(`${apiUrl.replace("http", "ws")}/ws`);
    stops.push(async () => socket.ws.close());
    const ack = await socket.request({ type: "subscribe", channel: "agent", id: TOKEN });
    expect(ack.type).toBe("subscribed");
    const pushed = (type: string) => socket.of("event").filter((m) => m.data.eventType === type);
    const delivered = (type: string) =>
      rx.received
        .map((r) => verifyStandardWebhook(sub.body.data.secret, r.headers, r.body))
        .filter((p) => (p as { type: string }).type === type) as {
        data: { id: string; data: Record<string, unknown> };
      }[];

    // The pledge's clock runs a week less five seconds behind: a loosening saved on it binds,
    // after its seven days' delay, five seconds from now by the worker's (real) clock.
    clock.offsetMs = -7 * DAY + 5_000;
    // A first pledge binds at once: pushed on the socket and delivered as a webhook, both the
    // feed's own item.
    const tight = await pledge({ lockDays: 0, maxDailySellPercent: "10" });
    expect(tight.status).toBe(200);
    await socket.waitFor((m) => m.data?.eventType === "pledge.updated", "pledge.updated");
    await rx.until(() => delivered("pledge.updated").length === 1);
    const feed = await call("GET", `/v2/agents/${agent.agentId}/events?eventType=pledge.updated`);
    const [item] = feed.body.data.items;
    expect(pushed("pledge.updated").map((m) => m.data)).toEqual([item]);
    expect(delivered("pledge.updated").map((p) => p.data)).toEqual([item]);
    expect(item.data).toMatchObject({
      pledgeId: tight.body.data.inForce.pledgeId,
      maxDailySellPercent: "10",
      change: "tightening",
    });

    // A loosening is announced at its save, and again once it binds.
    const loose = await pledge({ lockDays: 0, maxDailySellPercent: "50" });
    const pending = loose.body.data.pending;
    expect(pending.maxDailySellPercent).toBe("50");
    await socket.waitFor(
      (m) => m.data?.eventType === "pledge.updated" && m.data.data.change === "loosening",
      "the loosening's pledge.updated",
    );
    expect(pushed("pledge.loosened")).toEqual([]);

    // Two workers look for it, one restarts, each on a connection of its own: it is written once.
    const worker = (sql: Sql) => startPledgeBindWorker({ sql, log: pino({ level: "silent" }) });
    const [sqlA, sqlB] = [0, 1].map(() => createSql(db.url, { appName: "pledge-worker" })) as [
      Sql,
      Sql,
    ];
    stops.push(
      () => sqlA.end({ timeout: 1 }),
      () => sqlB.end({ timeout: 1 }),
    );
    const stopA = worker(sqlA);
    const stopB = worker(sqlB);
    await socket.waitFor((m) => m.data?.eventType === "pledge.loosened", "pledge.loosened", 30_000);
    await stopA();
    const again = worker(sqlA);
    await new Promise((r) => setTimeout(r, 1_000));
    await Promise.all([again(), stopB()]);
    await rx.until(() => delivered("pledge.loosened").length >= 1);

    const loosened = await call(
      "GET",
      `/v2/agents/${agent.agentId}/events?eventType=pledge.loosened`,
    );
    expect(loosened.body.data.items).toHaveLength(1);
    const [bound] = loosened.body.data.items;
    expect(bound).toMatchObject({
      occurredAt: pending.effectiveAt,
      category: "market",
      data: { pledgeId: pending.pledgeId, maxDailySellPercent: "50", savedAt: pending.createdAt },
    });
    expect(bound.text).toContain("at most 50% of its holding a day");
    expect(pushed("pledge.loosened").map((m) => m.data)).toEqual([bound]);
    expect(delivered("pledge.loosened").map((p) => p.data)).toEqual([bound]);
    // And the pledge in force now is the one the event names.
    clock.offsetMs = 0;
    const now = await call("GET", `/v2/agents/${agent.agentId}/pledge`);
    expect(now.body.data.inForce.pledgeId).toBe(pending.pledgeId);
    expect(now.body.data.pending).toBeNull();
  });
});
