import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createAgent } from "../../../lib/agents/keys.ts";
import { insertAgentEvents } from "../../../lib/events/store.ts";
import { servePrivate } from "../../helpers/world/serve.ts";
import { pointHost, WORLD_HOSTS, WORLD_PRIVATE } from "../../helpers/world/world.ts";
import {
  api,
  deliveries,
  dispatcher,
  ev,
  h,
  receiver,
  subscribe,
  useOutboundHarness,
  waitFor,
} from "./harness.ts";
import { verifyStandardWebhook } from "./receiver.ts";

useOutboundHarness();

describe("outbound delivery", () => {
  it("delivers each new public event that passes the filters, signed so a Standard Webhooks verifier accepts it", async () => {
    const agent = await createAgent(h.db.sql, { name: "signed" });
    const other = await createAgent(h.db.sql, { name: "other" });
    await insertAgentEvents({
      sql: h.db.sql,
      events: [ev(agent.agentId, { sourceEventId: "before-sub" })],
    });
    const rx = await receiver();
    const sub = await subscribe(agent, { url: `${rx.origin}/hook`, eventTypes: ["token.*"] });
    await dispatcher(1);
    await insertAgentEvents({
      sql: h.db.sql,
      events: [
        ev(agent.agentId, { sourceEventId: "wanted", correlationId: "corr-1" }),
        ev(agent.agentId, { eventType: "pr.merged", category: "apps" }),
        ev(agent.agentId, { eventType: "token.traded", visibility: "hidden" }),
        ev(agent.agentId, { eventType: "token.sold", visibility: "internal" }),
        ev(other.agentId, { eventType: "token.created" }),
        ev(agent.agentId, { sourceEventId: "wanted-2", eventType: "token.graduated" }),
      ],
    });
    await rx.until((r) => r.length >= 2);
    // Whatever else was going to be sent has been by the time a webhook.test sent after it lands.
    await api(
      "POST",
      `/v2/agents/${agent.agentId}/webhooks/${sub.subscriptionId}/test`,
      agent.apiKey,
      "/v2/agents/{agent}/webhooks/{subscriptionId}/test",
    );
    await rx.until((r) => r.some((x) => x.body.includes("webhook.test")));
    const events = rx.received.filter((x) => !x.body.includes("webhook.test"));
    expect(events).toHaveLength(2);
    const payloads = events.map((r) => verifyStandardWebhook(sub.secret, r.headers, r.body)) as {
      type: string;
      timestamp: string;
      data: Record<string, unknown>;
    }[];
    expect(payloads.map((p) => p.data.sourceEventId).sort()).toEqual(["wanted", "wanted-2"]);
    const first = payloads.find((p) => p.data.sourceEventId === "wanted");
    expect(first).toMatchObject({
      type: "token.created",
      data: {
        eventType: "token.created",
        category: "trading",
        source: "indexer",
        correlationId: "corr-1",
        visibility: "public",
      },
    });
    expect(Object.keys(first?.data ?? {}).sort()).toEqual(
      [
        "category",
        "correlationId",
        "data",
        "eventType",
        "id",
        "ingestedAt",
        "occurredAt",
        "source",
        "sourceEventId",
        "text",
        "visibility",
      ].sort(),
    );
    // A wrong secret does not verify.
    expect(() =>
      verifyStandardWebhook(
        `whsec_${randomBytes(32).toString("base64")}`,
        events[0]?.headers ?? {},
        events[0]?.body ?? "",
      ),
    ).toThrow("No matching signature");

    const log = await waitFor(async () => {
      const l = await deliveries(agent, sub.subscriptionId);
      return l.every((d) => d.status === "succeeded") && l;
    });
    expect(log).toHaveLength(3);
    expect(log.every((d) => d.log.length === 1 && d.log[0].statusCode === 200)).toBe(true);
  });

  it("retries a receiver that fails twice: the third attempt succeeds with the same webhook-id and body", async () => {
    const agent = await createAgent(h.db.sql, { name: "retry" });
    const rx = await receiver((_, n) =>
      n === 1 ? 500 : n === 2 ? { status: 503, headers: { "retry-after": "0" } } : 200,
    );
    const sub = await subscribe(agent, { url: `${rx.origin}/flaky` });
    await dispatcher(0.001); // test-mode clock: 5 s -> 5 ms, 5 min -> 300 ms
    await insertAgentEvents({ sql: h.db.sql, events: [ev(agent.agentId)] });
    const got = await rx.until((r) => r.length >= 3);
    const d = await waitFor(async () =>
      (await deliveries(agent, sub.subscriptionId)).find((x) => x.status === "succeeded"),
    );
    expect(got).toHaveLength(3);
    expect(new Set(got.map((r) => r.headers["webhook-id"])).size).toBe(1);
    expect(new Set(got.map((r) => r.body)).size).toBe(1);
    for (const r of got) verifyStandardWebhook(sub.secret, r.headers, r.body);
    expect(d.webhookId).toBe(got[0]?.headers["webhook-id"]);
    expect(d.attempts).toBe(3);
    expect(d.log.map((a: { statusCode: number }) => a.statusCode)).toEqual([500, 503, 200]);
    expect(d.log.map((a: { outcome: string }) => a.outcome)).toEqual([
      "failed",
      "failed",
      "succeeded",
    ]);
  });

  it("disables the subscription on 410 Gone and records an internal event, never delivered", async () => {
    const agent = await createAgent(h.db.sql, { name: "gone" });
    const rx = await receiver(() => 410);
    const sub = await subscribe(agent, { url: `${rx.origin}/gone` });
    await dispatcher(0.001);
    await insertAgentEvents({ sql: h.db.sql, events: [ev(agent.agentId), ev(agent.agentId)] });
    const s = await waitFor(async () => {
      const r = await api(
        "GET",
        `/v2/agents/${agent.agentId}/webhooks/${sub.subscriptionId}`,
        agent.apiKey,
        "/v2/agents/{agent}/webhooks/{subscriptionId}",
      );
      return r.body.data.enabled === false ? r.body.data : undefined;
    });
    expect(s.disabledReason).toBe("gone");
    const [e] = await h.db.sql`select visibility, data from app.agent_events
      where agent_id = ${agent.agentId} and event_type = 'webhook.subscription_disabled'`;
    expect(e).toMatchObject({
      visibility: "internal",
      data: { subscriptionId: sub.subscriptionId, reason: "gone" },
    });
    // One request reached the receiver; the other delivery waits for a re-enable.
    await new Promise((r) => setTimeout(r, 500));
    expect(rx.received).toHaveLength(1);
    const log = await deliveries(agent, sub.subscriptionId);
    expect(log.map((d) => d.status).sort()).toEqual(["failed", "pending"]);
  });

  it("fails a delivery after its 24 h schedule and disables a subscription that did nothing but fail", async () => {
    const agent = await createAgent(h.db.sql, { name: "down" });
    const rx = await receiver(() => 500);
    const sub = await subscribe(agent, { url: `${rx.origin}/down` });
    await dispatcher(0.0001); // 24 h -> 8.6 s
    await insertAgentEvents({ sql: h.db.sql, events: [ev(agent.agentId)] });
    const d = await waitFor(
      async () => (await deliveries(agent, sub.subscriptionId)).find((x) => x.status === "failed"),
      60_000,
    );
    expect(d.attempts).toBe(10);
    expect(d.nextAttemptAt).toBeNull();
    // Attempts follow the schedule: each one later than the one before, spanning the window.
    const starts = d.log.map((a: { startedAt: string }) => Date.parse(a.startedAt));
    expect(starts.at(-1) - starts[0]).toBeGreaterThan(0.8 * 8640);
    const [s] = await h.db.sql`select enabled, disabled_reason from app.webhook_subscriptions
      where subscription_id = ${sub.subscriptionId}`;
    expect(s).toEqual({ enabled: false, disabled_reason: "failing" });
    const events = await h.db.sql`select 1 from app.agent_events
      where agent_id = ${agent.agentId} and event_type = 'webhook.subscription_disabled'`;
    expect(events).toHaveLength(1);
  });

  it("delivers to a receiver at an IPv6-only name, and refuses one whose name has since moved inside (DNS rebinding)", async () => {
    const agent = await createAgent(h.db.sql, { name: "rebind" });
    const v6 = await receiver(undefined, "hooks6.example.org");
    const moving = await receiver(undefined, "rebind.example.com");
    // Where the name will point: a server on the same port inside, which must never be reached.
    const reachedInside: string[] = [];
    const inside = await servePrivate(
      WORLD_PRIVATE.tenNet,
      (req, res) => {
        reachedInside.push(req.url ?? "");
        res.end();
      },
      { port: Number(new URL(moving.origin).port) },
    );
    try {
      await subscribe(agent, { url: `${v6.origin}/v6` });
      const sub = await subscribe(agent, { url: `${moving.origin}/hook` });
      await dispatcher(1);
      await insertAgentEvents({ sql: h.db.sql, events: [ev(agent.agentId)] });
      await v6.until((r) => r.length === 1);
      await moving.until((r) => r.length === 1);

      pointHost("rebind.example.com", [WORLD_PRIVATE.tenNet]);
      await insertAgentEvents({ sql: h.db.sql, events: [ev(agent.agentId)] });
      await v6.until((r) => r.length === 2);
      const refused = await waitFor(async () =>
        (await deliveries(agent, sub.subscriptionId))
          .flatMap((d) => d.log)
          .find((a: { error: string | null }) => a.error !== null),
      );
      expect(refused.error).toBe("rebind.example.com does not resolve to a public address");
      expect(reachedInside).toEqual([]);
      expect(moving.received).toHaveLength(1);
    } finally {
      pointHost("rebind.example.com", WORLD_HOSTS["rebind.example.com"]);
      await inside.close();
    }
  });
});
