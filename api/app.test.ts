import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { createApp } from "./app.ts";

const app = createApp({
  logger: pino({ level: "silent" }),
  env: "test",
  startedAt: Date.now() - 5_000,
});

describe("GET /health", () => {
  it("answers the spec's envelope", async () => {
    const res = await app.request("/health");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    const body = (await res.json()) as { data: { uptimeSeconds: number } };
    expect(body).toEqual({
      ok: true,
      data: { service: "launchpad", env: "test", uptimeSeconds: expect.any(Number) },
    });
    expect(body.data.uptimeSeconds).toBeGreaterThanOrEqual(5);
    expect(Number.isInteger(body.data.uptimeSeconds)).toBe(true);
  });

  it("echoes a request id, or makes one", async () => {
    const given = await app.request("/health", { headers: { "x-request-id": "req-123" } });
    expect(given.headers.get("x-request-id")).toBe("req-123");
    const made = await app.request("/health");
    expect(made.headers.get("x-request-id")).toMatch(/.{8,}/);
  });
});

describe("errors", () => {
  it("an unknown route is a not_found envelope", async () => {
    const res = await app.request("/nope");
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({
      ok: false,
      error: "not_found",
      message: expect.stringContaining("/nope"),
    });
  });

  it("an oversized body is refused with 413 before any handler runs", async () => {
    const res = await app.request("/health", { method: "POST", body: "x".repeat(300 * 1024) });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ ok: false, error: "payload_too_large" });
  });
});

describe("GET /openapi.json", () => {
  it("is an OpenAPI 3.1 document describing /health", async () => {
    const res = await app.request("/openapi.json");
    const doc = (await res.json()) as {
      openapi: string;
      info: { version: string };
      paths: Record<string, { get: { responses: Record<string, unknown> } }>;
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("2.0.0");
    expect(doc.paths["/health"]?.get.responses["200"]).toBeDefined();
  });
});
