import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../../env.ts";
import { securityHeaders } from "./index.ts";

function app(hsts = false) {
  const a = new Hono<AppEnv>().use(securityHeaders({ hsts }));
  a.get("/public", (c) => c.json({ ok: true }, 200, { "Cache-Control": "max-age=60" }));
  a.get("/login", (c) => {
    c.header("Set-Cookie", "s=1; HttpOnly");
    return c.json({ ok: true });
  });
  return a;
}

describe("securityHeaders", () => {
  it("marks every answer nosniff, unframeable and referrer-free", async () => {
    const res = await app().request("/public");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("strict-transport-security")).toBeNull();
    expect((await app(true).request("/public")).headers.get("strict-transport-security")).toMatch(
      /max-age=\d+/,
    );
  });

  it("keeps a public answer cacheable, but never one given to credentials or setting a cookie", async () => {
    expect((await app().request("/public")).headers.get("cache-control")).toBe("max-age=60");
    for (const headers of [
      { authorization: "Bearer agk_x" },
      { "x-agent-api-key": "agk_x" },
      { cookie: "siwe_session=abc" },
    ]) {
      const res = await app().request("/public", { headers });
      expect(res.headers.get("cache-control")).toBe("no-store");
    }
    expect((await app().request("/login")).headers.get("cache-control")).toBe("no-store");
  });
});
