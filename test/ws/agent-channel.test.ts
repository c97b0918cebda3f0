import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../api/app.ts";
import { WS_LIMITS } from "../../api/limits.ts";
import { startServer } from "../../api/server.ts";
import { defaultApiSettings } from "../../api/settings.ts";
import { startTestDatabase, type TestDatabase } from "../../api/testing/postgres.ts";
import { attachWebSocket } from "../../api/ws/bridge.ts";
import { createSql } from "../../lib/db/client.ts";
import { insertAgentEvents, type NewAgentEvent } from "../../lib/events/store.ts";
import { freePort } from "../../lib/local/net.ts";
import { WsClient } from "./client.ts";

// The bridge over a real Postgres and real HTTP servers, without a chain: the `agent` channel,
// resume, the protocol's errors and every limit. Two bridges with their own database clients
// stand for two API processes (test/ws/stack.test.ts runs two real `launchpad api` processes).

type Bridge = { url: string; close: () => Promise<void>; stopWs: () => Promise<void> };
let db: TestDatabase;
const bridges: Bridge[] = [];
const clients: WsClient[] = [];

async function bridge(heartbeatMs?: number): Promise<Bridge> {
  const sql = createSql(db.url, { appName: "ws-test" });
  const logger = pino({ level: "silent" });
  const settings = defaultApiSettings({ trustProxy: 1 });
  const app = createApp({ logger, env: "test", sql, settings, headBlock: async () => undefined });
  const port = await freePort();
  const server = await startServer({ app, host: "127.0.0.1", port, logger });
  const ws = await attachWebSocket({
    server: server.server,
    sql,
    viewsSchema: "onchain",
    trustProxy: 1,
    logger,
    heartbeatMs,
  });
  const b = {
    url: `ws://127.0.0.1:${port}/ws`,
    stopWs: () => ws.close(),
    close: async () => {
      await ws.close();
      await server.close();
      await sql.end({ timeout: 1 });
    },
  };
  bridges.push(b);
  return b;
}

let ipN = 1;
async function connect(url: string, ip = `10.20.${ipN >> 8}.${ipN++ & 255}`) {
  const c = await WsClient.open(url, { "x-forwarded-for": ip });
  clients.push(c);
  return c;
}

const TOKEN = "0x00000000000000000000000000000000000000a1";
let seq = 0;
function event(over: Partial<NewAgentEvent> = {}): NewAgentEvent {
  seq++;
  return {
    agentId: "agent-1",
    eventType: "pr.merged",
    category: "apps",
    source: "code-host",
    sourceEventId: `e-${seq}`,
    occurredAt: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)),
    correlationId: `corr-${seq}`,
    data: { repo: "a/b", number: seq, title: `PR ${seq}`, url: `https://example.com/${seq}` },
    ...over,
  };
}

beforeAll(async () => {
  db = await startTestDatabase();
  await db.sql`insert into app.agents (agent_id, name, ticker, description, image_url, token_address)
    values ('agent-1', 'One', 'ONE', 'd', 'https://example.com/i.png', ${TOKEN})`;
}, 60_000);

afterAll(async () => {
  for (const c of clients) c.close();
  for (const b of bridges) await b.close().catch(() => {});
  await db?.stop();
});

const sub = (c: WsClient, since?: string) =>
  c.request({
    type: "subscribe",
    channel: "agent",
    id: TOKEN.toUpperCase().replace("0X", "0x"),
    since,
  });

describe("agent channel", () => {
  it("delivers each public event, exactly as the feed item, to a subscriber on every process", async () => {
    const [a, b] = [await bridge(), await bridge()];
    const [ca, cb] = [await connect(a.url), await connect(b.url)];
    for (const c of [ca, cb]) {
      const ack = await sub(c);
      expect(ack).toMatchObject({ type: "subscribed", channel: `agent.${TOKEN}`, data: null });
      expect(ack.cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    }
    const [stored] = await insertAgentEvents({ sql: db.sql, events: [event()] });
    await insertAgentEvents({ sql: db.sql, events: [event({ visibility: "hidden" })] });
    const [last] = await insertAgentEvents({ sql: db.sql, events: [event()] });
    for (const c of [ca, cb]) {
      await c.waitCount(() => c.of("event").length, 2, "events");
      await new Promise((r) => setTimeout(r, 300));
      const events = c.of("event");
      expect(events.map((m) => m.data.id)).toEqual([String(stored?.id), String(last?.id)]);
      expect(events[0]).toMatchObject({
        channel: `agent.${TOKEN}`,
        data: {
          id: String(stored?.id),
          eventType: "pr.merged",
          category: "apps",
          source: "code-host",
          sourceEventId: stored?.sourceEventId,
          occurredAt: stored?.occurredAt.toISOString(),
          ingestedAt: stored?.ingestedAt.toISOString(),
          correlationId: stored?.correlationId,
          visibility: "public",
          data: stored?.data,
        },
      });
      expect(typeof events[0]?.data.text).toBe("string");
      expect(new Set(events.map((m) => m.cursor)).size).toBe(2);
    }
  });

  it("resumes from a cursor: replays the gap in order, then live, no duplicate at the seam", async () => {
    const b = await bridge();
    const first = await connect(b.url);
    await sub(first);
    await insertAgentEvents({ sql: db.sql, events: [event()] });
    const seen = await first.waitFor((m) => m.type === "event");
    first.close();

    // Events keep arriving, one transaction each, while the client reconnects with `since`.
    const written: string[] = [];
    let writing = true;
    const writer = (async () => {
      while (writing) {
        const [e] = await insertAgentEvents({ sql: db.sql, events: [event()] });
        written.push(String(e?.id));
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    await new Promise((r) => setTimeout(r, 150));
    const again = await connect(b.url);
    const ack = await sub(again, seen.cursor as string);
    expect(ack.type).toBe("subscribed");
    expect(ack.data.replayed).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 300));
    writing = false;
    await writer;
    await again.waitCount(() => again.of("event").length, written.length, "events");
    await new Promise((r) => setTimeout(r, 300));
    expect(again.of("event").map((m) => m.data.id)).toEqual(written);
  });

  it("stops after unsubscribe, and a socket gets nothing it did not subscribe to", async () => {
    const b = await bridge();
    const c = await connect(b.url);
    const other = await connect(b.url);
    await sub(c);
    expect(await c.request({ type: "unsubscribe", channel: `agent.${TOKEN}` })).toMatchObject({
      type: "unsubscribed",
      channel: `agent.${TOKEN}`,
    });
    await insertAgentEvents({ sql: db.sql, events: [event()] });
    await new Promise((r) => setTimeout(r, 1_500));
    expect(c.of("event")).toEqual([]);
    expect(other.messages).toEqual([]);
  });
});

describe("protocol errors and limits", () => {
  it("answers bad messages with an error and keeps the socket open", async () => {
    const b = await bridge();
    const c = await connect(b.url);
    const err = async (m: unknown) => (await c.request(m)).data?.code;
    expect(await err("{not json")).toBe("malformed");
    expect(await err({ type: "subscribe" })).toBe("malformed");
    expect(await err({ type: "dance" })).toBe("malformed");
    expect(await err({ type: "subscribe", channel: "candles", id: "x" })).toBe("unknown_channel");
    expect(await err({ type: "subscribe", channel: "agent", id: "0x12" })).toBe("unknown_id");
    expect(await err({ type: "subscribe", channel: "agent", id: `0x${"b".repeat(40)}` })).toBe(
      "unknown_id",
    );
    expect(await err({ type: "subscribe", channel: "factory", id: "7" })).toBe("unknown_id");
    expect(await err({ type: "subscribe", channel: "agent", id: TOKEN, since: "bogus" })).toBe(
      "bad_cursor",
    );
    // The chain channels answer `unavailable` until Ponder has published its views.
    expect(await err({ type: "subscribe", channel: "token", id: TOKEN })).toBe("unavailable");
    expect(await c.request({ type: "ping" })).toEqual({
      type: "pong",
      channel: null,
      data: null,
      cursor: null,
    });
    expect(c.closed).toBeUndefined();
    for (const m of c.messages.filter((x) => x.type === "error")) {
      expect(m).toMatchObject({
        data: { code: expect.any(String), message: expect.any(String) },
        cursor: null,
      });
    }
  });

  it("closes a socket that floods bad messages with 1008", async () => {
    const b = await bridge();
    const c = await connect(b.url);
    for (let i = 0; i <= WS_LIMITS.maxBadMessagesPerMinute; i++) c.send("nope");
    expect(await c.waitClose()).toEqual({ code: 1008, reason: "too many bad messages" });
  });

  it("closes a socket whose frame is over the message size limit with 1009", async () => {
    const b = await bridge();
    const c = await connect(b.url);
    c.send(JSON.stringify({ type: "ping", pad: "x".repeat(WS_LIMITS.maxMessageBytes) }));
    expect((await c.waitClose()).code).toBe(1009);
  });

  it("refuses a subscription past the per-socket limit", async () => {
    const n = WS_LIMITS.maxSubscriptionsPerSocket;
    const rows = Array.from({ length: n + 1 }, (_, i) => ({
      agent_id: `lim-${i}`,
      name: `L${i}`,
      ticker: "LIM",
      description: "d",
      image_url: "https://example.com/i.png",
      token_address: `0x${(0xb000 + i).toString(16).padStart(40, "0")}`,
    }));
    await db.sql`insert into app.agents ${db.sql(rows)}`;
    const b = await bridge();
    const c = await connect(b.url);
    for (const r of rows.slice(0, n))
      c.send({ type: "subscribe", channel: "agent", id: r.token_address });
    await c.waitCount(() => c.of("subscribed").length, n, "acks");
    const over = await c.request({
      type: "subscribe",
      channel: "agent",
      id: rows[n]?.token_address,
    });
    expect(over).toMatchObject({ type: "error", data: { code: "limit_exceeded" } });
    expect(c.closed).toBeUndefined();
  });

  it("refuses sockets past the per-IP limit", async () => {
    const b = await bridge();
    const ip = "10.99.0.1";
    for (let i = 0; i < WS_LIMITS.maxSocketsPerIp; i++) await connect(b.url, ip);
    await expect(WsClient.open(b.url, { "x-forwarded-for": ip })).rejects.toThrow(/429/);
    expect((await connect(b.url, "10.99.0.2")).closed).toBeUndefined();
  });

  it("counts an IPv6 client's sockets by its /64: addresses rotated inside it open no more, another /64 its own", async () => {
    const b = await bridge();
    for (let i = 1; i <= WS_LIMITS.maxSocketsPerIp; i++)
      await connect(b.url, `2001:db8:77:1:${i.toString(16)}::${i.toString(16)}`);
    await expect(
      WsClient.open(b.url, { "x-forwarded-for": "2001:db8:77:1:ffff:ffff:ffff:ffff" }),
    ).rejects.toThrow(/429/);
    expect((await connect(b.url, "2001:db8:77:2::1")).closed).toBeUndefined();
  });

  it("cuts a consumer that stops reading with 1013 instead of buffering without bound", async () => {
    const b = await bridge();
    const c = await connect(b.url);
    await sub(c);
    c.ws.pause();
    // ~24 MB of messages: far past the socket's send buffer and the kernel's.
    const big = "x".repeat(8 * 1024);
    for (let k = 0; k < 6; k++) {
      await insertAgentEvents({
        sql: db.sql,
        events: Array.from({ length: 500 }, () =>
          event({ data: { repo: "a/b", number: 1, title: big, url: "u" } }),
        ),
      });
    }
    await new Promise((r) => setTimeout(r, 1_000));
    c.ws.resume();
    // 1013 with its reason when the client reads the close frame within the close grace; on a
    // starved test machine the grace can end first and the server's cut shows as 1006.
    const closed = await c.waitClose();
    if (closed.code !== 1006) {
      expect(closed).toEqual({ code: 1013, reason: "slow consumer: send buffer full" });
    }
    expect(c.of("event").length).toBeLessThan(3000);
  });

  it("pings every socket and drops a peer that stopped answering", async () => {
    // Long enough that a busy test process still answers each ping before the next one.
    const b = await bridge(1_000);
    const [dead, live] = [await connect(b.url), await connect(b.url)];
    let pings = 0;
    live.ws.on("ping", () => pings++);
    dead.ws.pause(); // reads nothing, so it never answers a ping: a half-open peer
    // Three pings to the live peer: the dead one has missed at least two by then.
    await live.waitCount(() => pings, 3, "pings");
    dead.ws.resume();
    expect((await dead.waitClose()).code).toBe(1006);
    expect(live.closed).toBeUndefined();
    expect((await live.request({ type: "ping" })).type).toBe("pong");
  });

  it("closes every socket with 1001 on shutdown", async () => {
    const b = await bridge();
    const c = await connect(b.url);
    await sub(c);
    await b.stopWs();
    expect(await c.waitClose()).toEqual({ code: 1001, reason: "server shutting down" });
  });
});
