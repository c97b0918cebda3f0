import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppEnv } from "../../env.ts";
import { renderError } from "../../errors.ts";
import { startTestDatabase, type TestDatabase } from "../../testing/postgres.ts";
import { rateLimit } from "./index.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await startTestDatabase();
});
afterAll(() => db?.stop());

/** An app whose clients say who they are in headers (IP, or an authenticated principal). */
function appWith(o: { unauthenticated: number; authenticated: number }) {
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    c.set("clientIp", c.req.header("x-ip") ?? "unknown");
    const agent = c.req.header("x-agent");
    if (agent) c.set("principal", { kind: "agent", id: agent });
    await next();
  });
  app.use(rateLimit({ sql: db.sql, ...o }));
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
        expect(reset).toBeLessThanOrEqual(60);
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
