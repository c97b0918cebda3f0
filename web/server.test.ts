import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../lib/local/net.ts";
import { type Assets, loadAssets } from "./assets.ts";
import { createWebApp, slugOf } from "./server.ts";

// The web app's answers to the API's documented states, with a local HTTP server answering as
// the API does while its index is not published (503 + Retry-After, the error envelope) and a
// port nobody listens on. The happy paths run on the real stack in test/web/web.suite.ts.

let assets: Assets;
let api: Server;
let apiUrl: string;
/** The `X-Service-Key` of each request the stand-in API saw. */
const serviceKeys: (string | undefined)[] = [];

beforeAll(async () => {
  assets = await loadAssets(mkdtempSync(join(tmpdir(), "web-assets-")));
  api = createServer((req, res) => {
    res.setHeader("content-type", "application/json");
    serviceKeys.push(req.headers["x-service-key"] as string | undefined);
    if (req.url?.startsWith("/v2/agents?")) {
      res.end(JSON.stringify({ ok: true, data: { items: [], total: 0, limit: 1, offset: 0 } }));
      return;
    }
    if (req.url?.startsWith("/v2/agents/")) {
      res.statusCode = 404;
      res.end(JSON.stringify({ ok: false, error: "not_found", message: "no agent" }));
      return;
    }
    res.statusCode = 503;
    res.setHeader("retry-after", "7");
    res.end(JSON.stringify({ ok: false, error: "unavailable", message: "index not published" }));
  });
  await new Promise<void>((r) => api.listen(0, "127.0.0.1", r));
  const a = api.address();
  apiUrl = `http://127.0.0.1:${typeof a === "object" && a ? a.port : 0}`;
}, 60_000);

afterAll(() => new Promise<void>((r) => api.close(() => r())));

describe("the web app's state pages", () => {
  it("says the index is catching up (503, Retry-After, reloads itself) while the API answers 503", async () => {
    const app = createWebApp({ apiUrl, wsUrl: `${apiUrl.replace("http", "ws")}/ws` }, assets);
    for (const path of ["/", "/agent/0x000000000000000000000000000000000000beef", "/launches"]) {
      const res = await app.request(path);
      expect(res.status, path).toBe(503);
      expect(res.headers.get("retry-after")).toBe("7");
      const body = await res.text();
      expect(body).toContain("The index is catching up");
      expect(body).toContain('<meta http-equiv="refresh" content="7">');
    }
  });

  it("says the API is unreachable (502) when nothing answers", async () => {
    const down = `http://127.0.0.1:${await freePort()}`;
    const app = createWebApp({ apiUrl: down, wsUrl: "ws://127.0.0.1:1/ws" }, assets);
    const res = await app.request("/launches");
    expect(res.status).toBe(502);
    expect(await res.text()).toContain("The API is not answering");
  });

  it("serves the islands locally with long caching, and 404 for other assets", async () => {
    const app = createWebApp({ apiUrl, wsUrl: "ws://x/ws" }, assets);
    const js = await app.request(assets.script("agent"));
    expect(js.status).toBe(200);
    expect(js.headers.get("cache-control")).toContain("immutable");
    expect(js.headers.get("content-type")).toContain("javascript");
    expect((await app.request("/assets/agent.000000000000.js")).status).toBe(404);
    const css = await app.request(assets.style);
    expect(css.status).toBe(200);
  });

  it("reads the API with its service key, and limits each visitor's page views itself", async () => {
    const app = createWebApp(
      { apiUrl, wsUrl: "ws://x/ws", serviceKey: "k".repeat(43), visitorsPerMinute: 2 },
      assets,
    );
    const from = (ip: string) => ({ incoming: { socket: { remoteAddress: ip } } });
    serviceKeys.length = 0;
    const views = [];
    for (let i = 0; i < 3; i++)
      views.push((await app.request("/launches", {}, from("192.0.2.5"))).status);
    expect(views).toEqual([503, 503, 429]);
    expect(serviceKeys.length).toBeGreaterThan(0);
    expect(new Set(serviceKeys)).toEqual(new Set(["k".repeat(43)]));
    const limited = await app.request("/", {}, from("192.0.2.5"));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await limited.text()).toContain("Too many requests");
    // Another visitor, the islands and the health check are not held back by this one.
    expect((await app.request("/launches", {}, from("192.0.2.6"))).status).toBe(503);
    expect((await app.request(assets.style, {}, from("192.0.2.5"))).status).toBe(200);
    expect((await app.request("/health", {}, from("192.0.2.5"))).status).toBe(200);
  });

  it("counts an IPv6 visitor by its /64: addresses rotated inside it share the page limit, another /64 its own", async () => {
    const app = createWebApp({ apiUrl, wsUrl: "ws://x/ws", visitorsPerMinute: 2 }, assets);
    const from = (ip: string) => ({ incoming: { socket: { remoteAddress: ip } } });
    const views = [];
    for (const ip of ["2001:db8:5:1::1", "2001:db8:5:1:aaaa::2", "2001:db8:5:1:ffff::3"])
      views.push((await app.request("/launches", {}, from(ip))).status);
    expect(views).toEqual([503, 503, 429]);
    expect((await app.request("/launches", {}, from("2001:db8:5:2::1"))).status).toBe(503);
  });

  it("makes the featured agent's slug from its name", () => {
    expect(slugOf("Browser Agent")).toBe("browser-agent");
    expect(slugOf("  Ünïcode -- Agent 2! ")).toBe("unicode-agent-2");
  });
});
