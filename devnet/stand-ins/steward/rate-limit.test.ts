import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { serveHttp } from "../../../lib/http/serve.ts";
import { UpstreamError } from "../../../services/http.ts";
import { createStewardClient } from "../../../services/steward/client.ts";
import { createStewardApp } from "./server.ts";

// Steward's global limit in the stand-in (100 requests a minute per client address by default,
// 429 `{ok: false, error: "Rate limit exceeded"}` with Retry-After), and our client against it:
// a 429 is retried after the Retry-After it names, or, when that is longer than a call may wait,
// fails at once as retryable.

const dir = mkdtempSync(join(tmpdir(), "steward-rate-"));
const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const s of stops) await s();
  rmSync(dir, { recursive: true, force: true });
});

const KEY = "stw-rate-limit-test-key";
const TENANT = "rate-test";

/** A stand-in over HTTP; `statuses` is every answer's status, in order. */
async function stand(o: { requestsPerMinute?: number; rateLimitWindowMs?: number }) {
  const app = createStewardApp({
    rpcUrl: "http://127.0.0.1:9", // no call here reaches the chain
    chainId: 56,
    apiKey: KEY,
    tenantId: TENANT,
    webhookBaseUrl: "http://127.0.0.1:9",
    webhookSecret: "steward-rate-limit-webhook-secret",
    storePath: join(dir, `${Math.random()}.json`),
    masterKey: Buffer.alloc(32, 3),
    log: pino({ level: "silent" }),
    ...o,
  });
  const statuses: number[] = [];
  const server = await serveHttp({
    // The env carries the socket: the limit counts per client address.
    fetch: async (req: Request, env?: unknown) => {
      const res = await app.fetch(req, env);
      statuses.push(res.status);
      return res;
    },
    host: "127.0.0.1",
    port: 0,
  });
  stops.push(server.close);
  const url = `http://127.0.0.1:${server.port}`;
  const get = (path: string) =>
    fetch(`${url}${path}`, { headers: { "x-steward-key": KEY, "x-steward-tenant": TENANT } });
  const client = createStewardClient({ url, apiKey: KEY, tenantId: TENANT, timeoutMs: 5_000 });
  return { url, get, statuses, client };
}

describe("the Steward stand-in's rate limit", () => {
  it("serves Steward's 100 a minute per client, then answers 429 as Steward does; probes are not counted", async () => {
    const s = await stand({});
    for (let i = 0; i < 100; i++) expect((await s.get("/agents/nobody")).status).toBe(404);
    const refused = await s.get("/agents/nobody");
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ ok: false, error: "Rate limit exceeded" });
    const wait = Number(refused.headers.get("retry-after"));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect((await s.get("/health")).status).toBe(200);
  });

  it("serves again once the window has passed", async () => {
    const s = await stand({ requestsPerMinute: 2, rateLimitWindowMs: 500 });
    expect((await s.get("/agents/nobody")).status).toBe(404);
    expect((await s.get("/agents/nobody")).status).toBe(404);
    expect((await s.get("/agents/nobody")).status).toBe(429);
    let status = 429;
    for (let i = 0; i < 50 && status === 429; i++) {
      await sleep(100);
      status = (await s.get("/agents/nobody")).status;
    }
    expect(status).toBe(404);
  });

  it("our client waits out a short Retry-After and its call succeeds", async () => {
    const s = await stand({ requestsPerMinute: 2, rateLimitWindowMs: 1_000 });
    const w = await s.client.provisionWallet({ agentId: "agent-r" }); // GET 404, POST 200
    const again = await s.client.getWallet(w.walletId); // 429, then served after Retry-After
    expect(again.address).toBe(w.address);
    expect(s.statuses).toEqual([404, 200, 429, 200]);
  });

  it("our client fails at once, retryable, when the window is longer than a call may wait", async () => {
    const s = await stand({ requestsPerMinute: 1 });
    expect((await s.get("/agents/nobody")).status).toBe(404);
    const error = await s.client.getWallet("nobody").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).status).toBe(429);
    expect((error as UpstreamError).retryable).toBe(true);
    expect(s.statuses).toEqual([404, 429]);
  });
});
