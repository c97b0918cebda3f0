import { describe, expect, it } from "vitest";
import { pruneDeliveries } from "../../../jobs/webhooks/outbound/prune.ts";
import { createAgent } from "../../../lib/agents/keys.ts";
import { insertAgentEvents } from "../../../lib/events/store.ts";
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

describe("outbound delivery: chain events, addresses, redelivery, fairness, retention", () => {
  it("holds chain events until their block is final, and never sends one a reorg correction removed", async () => {
    const agent = await createAgent(h.db.sql, { name: "chain" });
    const rx = await receiver();
    const sub = await subscribe(agent, { url: `${rx.origin}/chain` });
    h.head = 100n;
    await dispatcher(1);
    const [kept, reorged] = await insertAgentEvents({
      sql: h.db.sql,
      events: [
        ev(agent.agentId, { sourceEventId: "kept", chainId: 56, blockNumber: 95n }),
        ev(agent.agentId, { sourceEventId: "reorged", chainId: 56, blockNumber: 96n }),
      ],
    });
    const held = await waitFor(async () => {
      const l = await deliveries(agent, sub.subscriptionId);
      return l.length === 2 && l;
    });
    expect(held.map((d) => d.status)).toEqual(["held", "held"]);
    // The projector corrects a reorg: the row of the dropped block goes away.
    await h.db.sql`delete from app.agent_events where id = ${reorged?.id.toString() ?? "0"}`;
    await new Promise((r) => setTimeout(r, 1500));
    expect(rx.received).toHaveLength(0);
    h.head = 95n + 15n; // the finality depth below the head
    const got = await rx.until((r) => r.length >= 1);
    const body = verifyStandardWebhook(sub.secret, got[0]?.headers ?? {}, got[0]?.body ?? "") as {
      data: { id: string };
    };
    expect(body.data.id).toBe(String(kept?.id));
    const log = await waitFor(async () => {
      const l = await deliveries(agent, sub.subscriptionId);
      return l.every((d) => d.status !== "held" && d.status !== "delivering") && l;
    });
    expect(log.map((d) => d.status).sort()).toEqual(["cancelled", "succeeded"]);
    await new Promise((r) => setTimeout(r, 1200));
    expect(rx.received).toHaveLength(1);
  });

  it("signs with both secrets for a day after a rotation", async () => {
    const agent = await createAgent(h.db.sql, { name: "rotate" });
    const rx = await receiver();
    const sub = await subscribe(agent, { url: `${rx.origin}/rot` });
    const rotated = await api(
      "POST",
      `/v2/agents/${agent.agentId}/webhooks/${sub.subscriptionId}/rotate-secret`,
      agent.apiKey,
      "/v2/agents/{agent}/webhooks/{subscriptionId}/rotate-secret",
    );
    await dispatcher(1);
    await insertAgentEvents({ sql: h.db.sql, events: [ev(agent.agentId)] });
    const [r] = await rx.until((x) => x.length >= 1);
    expect(String(r?.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    verifyStandardWebhook(sub.secret, r?.headers ?? {}, r?.body ?? "");
    verifyStandardWebhook(rotated.body.data.secret, r?.headers ?? {}, r?.body ?? "");
  });

  it("redelivers on request with the same webhook-id and body", async () => {
    const agent = await createAgent(h.db.sql, { name: "redeliver" });
    const rx = await receiver();
    const sub = await subscribe(agent, { url: `${rx.origin}/again` });
    await dispatcher(1);
    await insertAgentEvents({ sql: h.db.sql, events: [ev(agent.agentId)] });
    const d = await waitFor(async () =>
      (await deliveries(agent, sub.subscriptionId)).find((x) => x.status === "succeeded"),
    );
    const r = await api(
      "POST",
      `/v2/agents/${agent.agentId}/webhooks/${sub.subscriptionId}/deliveries/${d.deliveryId}/redeliver`,
      agent.apiKey,
      "/v2/agents/{agent}/webhooks/{subscriptionId}/deliveries/{deliveryId}/redeliver",
    );
    expect(r.status).toBe(202);
    const got = await rx.until((x) => x.length >= 2);
    expect(got[1]?.headers["webhook-id"]).toBe(got[0]?.headers["webhook-id"]);
    expect(got[1]?.body).toBe(got[0]?.body);
    const missing = await api(
      "POST",
      `/v2/agents/${agent.agentId}/webhooks/${sub.subscriptionId}/deliveries/whdel_nope/redeliver`,
      agent.apiKey,
      "/v2/agents/{agent}/webhooks/{subscriptionId}/deliveries/{deliveryId}/redeliver",
    );
    expect(missing.status).toBe(404);
  });

  it("does not hold one subscription's deliveries behind another's slow receiver", async () => {
    const agent = await createAgent(h.db.sql, { name: "slow" });
    const slow = await receiver(() => ({ status: 200, delayMs: 1500 }));
    const fast = await receiver();
    await subscribe(agent, { url: `${slow.origin}/slow` });
    await subscribe(agent, { url: `${fast.origin}/fast` });
    await dispatcher(1);
    await insertAgentEvents({
      sql: h.db.sql,
      events: [ev(agent.agentId), ev(agent.agentId), ev(agent.agentId)],
    });
    await fast.until((r) => r.length >= 3);
    // The slow receiver has answered at most once meanwhile: its events go one at a time.
    expect(slow.received.length).toBeLessThanOrEqual(2);
    const got = await slow.until((r) => r.length >= 3, 20_000);
    // In event order, per subscription.
    const ids = got.map((r) => Number(JSON.parse(r.body).data.id));
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
  });

  it("prunes finished deliveries past the retention with their attempts, never pending ones", async () => {
    const [{ n: before } = { n: 0 }] = await h.db.sql<{ n: number }[]>`
      select count(*)::int as n from app.webhook_deliveries`;
    expect(before).toBeGreaterThan(3);
    // Age everything: finished ones go, the ones still waiting for an attempt stay.
    await h.db.sql`update app.webhook_deliveries
      set created_at = now() - interval '40 days',
        finished_at = case when finished_at is null then null else now() - interval '31 days' end`;
    const [{ open } = { open: 0 }] = await h.db.sql<{ open: number }[]>`
      select count(*)::int as open from app.webhook_deliveries where finished_at is null`;
    const deleted = await pruneDeliveries(h.db.sql, 30);
    expect(deleted).toBe(before - open);
    const left = await h.db.sql<{ status: string }[]>`select status from app.webhook_deliveries`;
    expect(left.every((d) => ["pending", "held", "delivering"].includes(d.status))).toBe(true);
    const orphans = await h.db.sql`select 1 from app.webhook_attempts a
      where not exists (select 1 from app.webhook_deliveries d where d.delivery_id = a.delivery_id)`;
    expect(orphans).toHaveLength(0);
  });
});
