import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../../env.ts";
import { HttpError, renderError } from "../../errors.ts";
import { cors } from "./index.ts";

const WEB = "http://localhost:3000";
const made = new Response('{"ok":true}', { headers: { "Content-Type": "application/json" } });

function app() {
  const a = new Hono<AppEnv>().use(
    cors({
      origin: WEB,
      allowMethods: ["GET", "POST"],
      allowHeaders: ["Content-Type", "Authorization"],
      exposeHeaders: ["ETag", "RateLimit-Remaining"],
      credentials: true,
      maxAge: 600,
    }),
  );
  a.get("/made", () => made);
  a.get("/json", (c) => c.json({ ok: true }, 200, { Vary: "Accept-Encoding" }));
  a.get("/fails", () => {
    throw new HttpError("not_found", { message: "no such thing" });
  });
  a.onError((e, c) => renderError(c, e));
  return a;
}

describe("cors", () => {
  it("grants the web app's origin, with credentials and the exposed headers", async () => {
    const res = await app().request("/json", { headers: { origin: WEB } });
    expect(res.headers.get("access-control-allow-origin")).toBe(WEB);
    expect(res.headers.get("access-control-allow-credentials")).toBe("true");
    expect(res.headers.get("access-control-expose-headers")).toBe("ETag,RateLimit-Remaining");
    // The handler's own Vary stays; Origin is added.
    expect(res.headers.get("vary")).toBe("Accept-Encoding, Origin");
  });

  it("grants no other origin, and no request without one", async () => {
    for (const headers of [{ origin: "https://evil.example" }, {}] as Record<string, string>[]) {
      const res = await app().request("/json", { headers });
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
      expect(res.headers.get("access-control-allow-credentials")).toBeNull();
      expect(res.headers.get("vary")).toContain("Origin");
    }
  });

  it("lets the web app read an error's envelope", async () => {
    const res = await app().request("/fails", { headers: { origin: WEB } });
    expect(res.status).toBe(404);
    expect(res.headers.get("access-control-allow-origin")).toBe(WEB);
    expect(((await res.json()) as { error: string }).error).toBe("not_found");
  });

  it("answers a preflight with the allowed methods and headers", async () => {
    const res = await app().request("/json", {
      method: "OPTIONS",
      headers: {
        origin: WEB,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(WEB);
    expect(res.headers.get("access-control-allow-methods")).toBe("GET,POST");
    expect(res.headers.get("access-control-allow-headers")).toBe("Content-Type,Authorization");
    expect(res.headers.get("access-control-max-age")).toBe("600");
  });

  it("sends the handler's response as it was made, not rebuilt around another", async () => {
    // A rebuilt answer is a new object whose body is a stream: node-server's fast path is lost.
    expect(await app().request("/made", { headers: { origin: WEB } })).toBe(made);
  });
});
