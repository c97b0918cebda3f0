import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppEnv } from "../../env.ts";
import { renderError } from "../../errors.ts";
import { startTestDatabase, type TestDatabase } from "../../testing/postgres.ts";
import { rateLimit } from "./index.ts";

// Windows are fixed and aligned to the clock: a test that straddled a window's end would see
// the budget refilled halfway. Hour-long windows, and no start in an hour's last minute.
const WINDOW_S = 3600;

let db: TestDatabase;
beforeAll(async () => {
  db = await startTestDatabase();
  const left = WINDOW_S * 1000 - (Date.now() % (WINDOW_S * 1000));
  if (left < 60_000) await new Promise((r) => setTimeout(r, left + 1000));
});
afterAll(() => db?.stop());

/** An app whose clients say who they are in headers (IP, or an authenticated principal). */
function appWith(o: { unauthenticated: number; authenticated: number; service?: number }) {
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    c.set("clientIp", c.req.header("x-ip") ?? "unknown");
    const agent = c.req.header("x-agent");
    if (agent) c.set("principal", { kind: "agent", id: agent });
    if (c.req.header("x-service")) c.set("principal", { kind: "service", id: "web" });
    await next();
  });
  app.use(rateLimit({ sql: db.sql, windowSeconds: WINDOW_S, ...o }));
  app.get("/x", (c) => c.json({ ok: true }));
  app.onError((e, c) => renderError(c, e));
  return app;
}

describe("rateLimit", () => {
  it("counts per IP, answers 429 with Retry-After past the limit, leaves other IPs alone", async () => {
    const app = appWith({ unauthenticated: 3, authenticated: 5 });
    const seen = [];
    for (let i = 0; i < 4; i++) {
      const res = await app.request("/x", { headers: { "x-ip": "192.0.2.1" } });
      seen.push([
        res.status,
        res.headers.get("ratelimit-limit"),
        res.headers.get("ratelimit-remaining"),
      ]);
      if (res.status === 429) {
        const reset = Number(res.headers.get("ratelimit-reset"));
        expect(Number(res.headers.get("retry-after"))).toBe(reset);
        expect(reset).toBeGreaterThanOrEqual(1);
        expect(reset).toBeLessThanOrEqual(WINDOW_S);
        expect(await res.json()).toMatchObject({ ok: false, error: "rate_limited" });
      }
    }
    expect(seen).toEqual([
      [200, "3", "2"],
      [200, "3", "1"],
      [200, "3", "0"],
      [429, "3", "0"],
    ]);
    const other = await app.request("/x", { headers: { "x-ip": "192.0.2.2" } });
    expect(other.status).toBe(200);
    expect(other.headers.get("ratelimit-remaining")).toBe("2");
  });

  it("counts an IPv6 client by its /64: addresses rotated inside it share one budget, another /64 has its own", async () => {
    const app = appWith({ unauthenticated: 3, authenticated: 5 });
    const statuses = [];
    // Four addresses of one /64, in the spellings a client may send.
    for (const ip of [
      "2001:db8:60:1::1",
      "2001:db8:60:1:aaaa::2",
      "2001:0db8:0060:0001:ffff:ffff:ffff:fffe",
      "2001:db8:60:1:1:2:3:4",
    ])
      statuses.push((await app.request("/x", { headers: { "x-ip": ip } })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const next = await app.request("/x", { headers: { "x-ip": "2001:db8:60:2::1" } });
    expect(next.status).toBe(200);
    expect(next.headers.get("ratelimit-remaining")).toBe("2");
  });

  it("gives an authenticated principal its own, larger budget", async () => {
    const app = appWith({ unauthenticated: 1, authenticated: 4 });
    const statuses = [];
    for (let i = 0; i < 5; i++) {
      const res = await app.request("/x", { headers: { "x-ip": "192.0.2.9", "x-agent": "a1" } });
      statuses.push(res.status);
      expect(res.headers.get("ratelimit-limit")).toBe("4");
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    // The same IP without credentials has its own budget.
    expect((await app.request("/x", { headers: { "x-ip": "192.0.2.9" } })).status).toBe(200);
  });

  it("counts the web role's reads in its own budget, apart from its address's and any agent's", async () => {
    const app = appWith({ unauthenticated: 1, authenticated: 2, service: 3 });
    const web = { "x-ip": "192.0.2.20", "x-service": "1" };
    const statuses = [];
    for (let i = 0; i < 4; i++) {
      const res = await app.request("/x", { headers: web });
      statuses.push(res.status);
      expect(res.headers.get("ratelimit-limit")).toBe("3");
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    // A browser on the web app's own address still has its anonymous budget.
    expect((await app.request("/x", { headers: { "x-ip": "192.0.2.20" } })).status).toBe(200);
  });

  it("under a high limit, two instances reserving hits in batches never admit past the shared budget", async () => {
    // 300 per window: each instance reserves 3 hits per upsert (limit / 100).
    const a = appWith({ unauthenticated: 300, authenticated: 600 });
    const b = appWith({ unauthenticated: 300, authenticated: 600 });
    let admitted = 0;
    let refused = 0;
    // Concurrent bursts on both instances, from one client.
    for (let round = 0; round < 10; round++) {
      const res = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          (i % 2 ? a : b).request("/x", { headers: { "x-ip": "192.0.2.50" } }),
        ),
      );
      for (const r of res) r.status === 200 ? admitted++ : refused++;
    }
    // Unused reservations are lost for the window: at most one batch per instance.
    expect(admitted).toBeLessThanOrEqual(300);
    expect(admitted).toBeGreaterThanOrEqual(300 - 2 * 3);
    expect(refused).toBe(400 - admitted);
    const [row] = await db.sql<{ count: number }[]>`
      select count from app.rate_limit where key = 'ip:192.0.2.50'`;
    // Far fewer upserts than requests: the window's count is in steps of the batch.
    expect(row?.count).toBeGreaterThanOrEqual(admitted);
  });

  it("a limit of 0 is off: no count, no headers, never 429", async () => {
    const app = appWith({ unauthenticated: 0, authenticated: 5 });
    for (let i = 0; i < 5; i++) {
      const res = await app.request("/x", { headers: { "x-ip": "192.0.2.77" } });
      expect(res.status).toBe(200);
      expect(res.headers.get("ratelimit-limit")).toBeNull();
    }
    const [row] = await db.sql`select 1 from app.rate_limit where key = 'ip:192.0.2.77'`;
    expect(row).toBeUndefined();
    // The authenticated limit still holds.
    const agent = await app.request("/x", { headers: { "x-ip": "192.0.2.77", "x-agent": "k" } });
    expect(agent.headers.get("ratelimit-limit")).toBe("5");
  });

  it("serves requests when the database cannot count (fail open)", async () => {
    const broken = new Proxy(db.sql, {
      apply: () => Promise.reject(new Error("connection refused")),
    });
    const app = new Hono<AppEnv>();
    app.use(async (c, next) => {
      c.set("clientIp", "192.0.2.3");
      await next();
    });
    app.use(rateLimit({ sql: broken }));
    app.get("/x", (c) => c.text("ok"));
    const res = await app.request("/x");
    expect(res.status).toBe(200);
    expect(res.headers.get("ratelimit-limit")).toBeNull();
  });
});
