/** Shared set-up of the delivery tests: database, app, receivers, dispatcher, API calls. */
import { randomBytes } from "node:crypto";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { type App, createApp } from "../../../api/app.ts";
import { defaultApiSettings } from "../../../api/settings.ts";
import { requestAs } from "../../../api/testing/client.ts";
import { responseChecker } from "../../../api/testing/openapi.ts";
import { startTestDatabase, type TestDatabase } from "../../../api/testing/postgres.ts";
import { startOutboundDispatcher } from "../../../jobs/webhooks/outbound/dispatcher.ts";
import { deriveKey } from "../../../lib/crypto/seal.ts";
import type { NewAgentEvent } from "../../../lib/events/store.ts";
import { outboundTiming } from "../../../lib/webhooks/outbound/timing.ts";
import { type Answer, type Received, startReceiver } from "./receiver.ts";

export const KEY = deriveKey(randomBytes(32), "test");
/** The test file's database, app and chain head; set up by `useOutboundHarness`. */
export const h = { db: undefined as unknown as TestDatabase, head: 0n };
let app: App;
let check: ReturnType<typeof responseChecker>;
const cleanups: (() => Promise<unknown>)[] = [];

/** Registers the file's hooks: a test database and app, and cleanup after each test. */
export function useOutboundHarness() {
  beforeAll(async () => {
    h.db = await startTestDatabase();
    app = createApp({
      logger: pino({ level: "silent" }),
      env: "test",
      sql: h.db.sql,
      settings: defaultApiSettings(),
      headBlock: async () => undefined,
      // Receivers are in the public world: no origin is trusted, as in production.
      webhooks: { secretsKey: KEY, trustedOrigins: [] },
    });
    check = responseChecker((await (await app.request("/openapi.json")).json()) as never);
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    await h.db.sql`update app.webhook_subscriptions set enabled = false`;
  });
  afterAll(() => h.db?.stop());
}

export async function receiver(
  answer?: (r: Received, n: number) => Answer,
  host?: Parameters<typeof startReceiver>[1],
) {
  const r = await startReceiver(answer, host);
  cleanups.push(r.close);
  return r;
}

export async function dispatcher(scale: number) {
  const d = await startOutboundDispatcher({
    sql: h.db.sql,
    log: pino({ level: "silent" }),
    secretsKey: KEY,
    trustedOrigins: [],
    timing: outboundTiming(scale),
    headBlock: async () => h.head,
  });
  cleanups.push(d.stop);
  return d;
}

export async function api(
  method: string,
  path: string,
  key: string,
  template: string,
  body?: unknown,
) {
  const res = await requestAs(app, path, {
    init: {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    },
  });
  // biome-ignore lint/suspicious/noExplicitAny: bodies are checked against the OpenAPI schema
  const json = (await res.json()) as Record<string, any>;
  expect(check(template, method.toLowerCase(), res.status, json)).toEqual([]);
  return { status: res.status, body: json };
}

export async function subscribe(
  agent: { agentId: string; apiKey: string },
  body: Record<string, unknown>,
) {
  const r = await api(
    "POST",
    `/v2/agents/${agent.agentId}/webhooks`,
    agent.apiKey,
    "/v2/agents/{agent}/webhooks",
    body,
  );
  expect(r.status).toBe(201);
  return r.body.data as { subscriptionId: string; secret: string };
}

export async function deliveries(agent: { agentId: string; apiKey: string }, subId: string) {
  const r = await api(
    "GET",
    `/v2/agents/${agent.agentId}/webhooks/${subId}/deliveries?limit=100`,
    agent.apiKey,
    "/v2/agents/{agent}/webhooks/{subscriptionId}/deliveries",
  );
  expect(r.status).toBe(200);
  // biome-ignore lint/suspicious/noExplicitAny: checked against the OpenAPI schema above
  return r.body.data.items as any[];
}

let seq = 0;
export const ev = (agentId: string, o: Partial<NewAgentEvent> = {}): NewAgentEvent => ({
  agentId,
  eventType: "token.created",
  category: "trading",
  source: "indexer",
  sourceEventId: `e${++seq}`,
  occurredAt: new Date(Date.now() - 1000),
  data: { n: seq },
  ...o,
});

export async function waitFor<T>(
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 100));
  }
}
