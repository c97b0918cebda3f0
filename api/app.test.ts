import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "./app.ts";
import { defaultApiSettings } from "./settings.ts";
import { requestAs } from "./testing/client.ts";
import { responseChecker, validateOpenApiDocument } from "./testing/openapi.ts";
import { startTestDatabase, type TestDatabase } from "./testing/postgres.ts";

// The app on a real, migrated Postgres with no chain index published yet (a fresh install
// before the indexer's first backfill). Chain data routes are tested in routes.test.ts.

let db: TestDatabase;
let app: App;
let check: ReturnType<typeof responseChecker>;

beforeAll(async () => {
  db = await startTestDatabase();
  app = createApp({
    logger: pino({ level: "silent" }),
    env: "test",
    sql: db.sql,
    settings: defaultApiSettings({ viewsSchema: "onchain_absent" }),
    startedAt: Date.now() - 5_000,
    headBlock: async () => 42n,
  });
  check = responseChecker((await (await app.request("/openapi.json")).json()) as never);
});
afterAll(() => db?.stop());

async function get(path: string, init?: RequestInit) {
  const res = await requestAs(app, path, { init });
  const type = res.headers.get("content-type") ?? "";
  const body = type.includes("json") ? await res.json() : await res.text();
  return { res, status: res.status, body: body as Record<string, unknown> & { data: never } };
}

describe("GET /health", () => {
  it("answers the spec's envelope", async () => {
    const { status, body } = await get("/health");
    expect(status).toBe(200);
    expect(body).toEqual({
      ok: true,
      data: { service: "launchpad", env: "test", uptimeSeconds: expect.any(Number) },
    });
    expect((body.data as { uptimeSeconds: number }).uptimeSeconds).toBeGreaterThanOrEqual(5);
    expect(check("/health", "get", 200, body)).toEqual([]);
  });

  it("echoes a request id, or makes one", async () => {
    const given = await get("/health", { headers: { "x-request-id": "req-123" } });
    expect(given.res.headers.get("x-request-id")).toBe("req-123");
    const made = await get("/health");
    expect(made.res.headers.get("x-request-id")).toMatch(/.{8,}/);
  });
});

describe("errors", () => {
  it("an unknown route is a not_found envelope", async () => {
    const { status, body } = await get("/nope");
    expect(status).toBe(404);
    expect(body).toMatchObject({
      ok: false,
      error: "not_found",
      message: expect.stringContaining("/nope"),
    });
  });

  it("an oversized body is refused with 413 when the route reads it", async () => {
    const { status, body } = await get("/auth/verify", {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://localhost:3000" },
      body: "x".repeat(300 * 1024),
    });
    expect(status).toBe(413);
    expect(body).toMatchObject({ ok: false, error: "payload_too_large" });
  });
});

describe("JSON bodies", () => {
  const preview = (init: RequestInit) => get("/v2/launches/1/preview", { method: "POST", ...init });

  it("a body sent as anything but application/json is 415, saying what to send", async () => {
    // What `curl -d '{...}'` sends: the form media type.
    const form = await preview({
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: JSON.stringify({ deposits: [] }),
    });
    expect(form.status).toBe(415);
    expect(form.body).toMatchObject({
      ok: false,
      error: "unsupported_media_type",
      message: expect.stringContaining("Content-Type: application/json"),
    });
    expect(check("/v2/launches/{id}/preview", "post", 415, form.body)).toEqual([]);
  });

  it("no body at all is one 400 saying so, not a list of every required field", async () => {
    const { status, body } = await preview({});
    expect(status).toBe(400);
    expect(body).toMatchObject({
      error: "validation_failed",
      message: expect.stringContaining("no body"),
      details: [{ path: "(root)", message: "a JSON body is required" }],
    });
  });
});

describe("GET /openapi.json", () => {
  it("is a valid OpenAPI 3.1.0 document, version 2.0.0, with every route", async () => {
    const { body } = await get("/openapi.json");
    const result = await validateOpenApiDocument(body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(body).toMatchObject({ openapi: "3.1.0", info: { version: "2.0.0" } });
    // Later issues add routes (the launch endpoint); these must always be there.
    expect(Object.keys(body.paths as object)).toEqual(
      expect.arrayContaining([
        "/AGENT.md",
        "/health",
        "/tokens",
        "/tokens/{address}",
        "/tokens/{address}/chart",
        "/tokens/{address}/trades",
        "/udf/config",
        "/udf/history",
        "/udf/search",
        "/udf/symbols",
        "/udf/time",
        "/v2/agents",
        "/v2/agents/{agent}",
        "/v2/indexer/status",
        "/v2/launches",
        "/v2/launches/{id}",
        "/v2/launches/{id}/depositors",
        "/v2/users/{address}/launches",
      ]),
    );
  });

  it("the interactive reference at /docs loads it", async () => {
    const { status, res, body } = await get("/docs");
    expect(status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    expect(String(body)).toContain("/openapi.json");
  });
});

describe("GET /AGENT.md", () => {
  it("is the Markdown spec v1.0.0 with this deployment's URLs", async () => {
    const { status, res, body } = await get("/AGENT.md");
    expect(status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    const text = String(body);
    expect(text).toContain("1.0.0");
    expect(text).toContain("http://127.0.0.1:3001");
    expect(text).toContain("ws://127.0.0.1:3001/ws");
    expect(text).not.toMatch(/\{(base_url|ws_url|web_url)\}/);
    for (const code of ["AGENT_AUTH_MISSING", "rate_limited", "validation_failed", "unavailable"])
      expect(text).toContain(code);
  });
});

describe("CORS", () => {
  it("lets the web app's origin read responses and the rate-limit headers", async () => {
    const { res } = await get("/v2/agents", { headers: { origin: "http://localhost:3000" } });
    expect(res.headers.get("access-control-allow-origin")).toBe("http://localhost:3000");
    expect(res.headers.get("access-control-expose-headers")).toContain("RateLimit-Remaining");
    const pre = await get("/v2/agents/launch", {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:3000",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization,content-type",
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.res.headers.get("access-control-allow-headers")).toMatch(/authorization/i);
  });

  it("gives other origins no CORS grant", async () => {
    const { res } = await get("/v2/agents", { headers: { origin: "https://evil.example" } });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("before the index is published", () => {
  it.each([
    "/tokens",
    "/tokens/0x00000000000000000000000000000000000000aa",
    "/tokens/0x00000000000000000000000000000000000000aa/trades",
    "/tokens/0x00000000000000000000000000000000000000aa/chart?interval=1m",
    "/tokens?sort=trending&q=ab",
    "/udf/symbols?symbol=ABC",
    "/udf/search?query=ab",
    "/udf/history?symbol=ABC&resolution=60&from=1&to=100",
    "/v2/launches",
    "/v2/launches/1",
    "/v2/launches/1/depositors",
    "/v2/users/0x00000000000000000000000000000000000000aa/launches",
  ])("%s is 503 unavailable with Retry-After, never 500", async (path) => {
    const { status, res, body } = await get(path);
    expect(status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(body).toMatchObject({ ok: false, error: "unavailable" });
    expect(
      check(
        path
          .split("?")[0]
          ?.replace(/0x[0-9a-f]{40}/, "{address}")
          .replace(/\/1(\/|$)/, "/{id}$1") ?? "",
        "get",
        503,
        body,
      ),
    ).toEqual([]);
  });

  it("the indexer status says so, with the chain head", async () => {
    const { status, body } = await get("/v2/indexer/status");
    expect(status).toBe(200);
    expect(body).toEqual({
      ok: true,
      data: { published: false, ready: false, stale: false, chains: [] },
    });
    expect(check("/v2/indexer/status", "get", 200, body)).toEqual([]);
  });
});

describe("GET /v2/indexer/status", () => {
  it("reads the chain's head once for any number of callers within a second, then again", async () => {
    const rpc = { calls: 0 };
    const counted = createApp({
      logger: pino({ level: "silent" }),
      env: "test",
      sql: db.sql,
      settings: defaultApiSettings({ viewsSchema: "onchain_absent" }),
      headBlock: async () => {
        rpc.calls++;
        await new Promise((r) => setTimeout(r, 50));
        return 42n;
      },
    });
    // Thirty anonymous callers, each from its own address, while the first read is in flight.
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => requestAs(counted, "/v2/indexer/status")),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(30).fill(200));
    expect(rpc.calls).toBe(1);
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await requestAs(counted, "/v2/indexer/status")).status).toBe(200);
    expect(rpc.calls).toBe(2);
  });
});
