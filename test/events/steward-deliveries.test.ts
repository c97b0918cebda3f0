import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../api/app.ts";
import { defaultApiSettings } from "../../api/settings.ts";
import { startTestDatabase, type TestDatabase } from "../../api/testing/postgres.ts";
import { stewardDeliveryHeaders } from "../../services/steward/webhooks.ts";

// Steward's own deliveries at /v2/webhooks/steward/{policy,sign}, in-process over a real
// Postgres: verified by Steward's v2 scheme, mapped onto the spec's events, matched from
// Steward's agent id to ours, and stored once per delivery id.

const SECRET = "steward-secret-0123456789";
const secrets = { steward: SECRET, cloud: SECRET, codeHost: SECRET, agentEvents: SECRET };
let db: TestDatabase;
let app: App;

beforeAll(async () => {
  db = await startTestDatabase();
  await db.sql`insert into app.agents (agent_id, name) values ('agent-s', 'S')`;
  await db.sql`insert into app.launch_wallets (agent_id, wallet_id) values ('agent-s', 'agt_steward-made-id')`;
  app = createApp({
    logger: pino({ level: "silent" }),
    env: "test",
    sql: db.sql,
    settings: defaultApiSettings(),
    headBlock: async () => undefined,
    adminToken: "operator-token-".padEnd(40, "x"),
    events: { webhookSecrets: secrets },
  });
}, 60_000);
afterAll(() => db?.stop());

let seq = 0;
function delivery(
  type: string,
  data: Record<string, unknown>,
  o: { agentId?: string; id?: string } = {},
) {
  const deliveryId = o.id ?? `dlv-${++seq}`;
  const body = JSON.stringify({
    type,
    tenantId: "launchpad",
    agentId: o.agentId ?? "agt_steward-made-id",
    data,
    timestamp: new Date(Date.UTC(2026, 7, 1, 12, 0, seq)).toISOString(),
    deliveryId,
    signedAt: Math.floor(Date.now() / 1000),
  });
  return {
    deliveryId,
    body,
    headers: stewardDeliveryHeaders({ secret: SECRET, body, deliveryId, eventType: type }),
  };
}
async function post(path: string, d: { body: string; headers: Record<string, string> }) {
  const res = await app.request(`/v2/webhooks/steward/${path}`, {
    method: "POST",
    headers: d.headers,
    body: d.body,
  });
  return {
    status: res.status,
    body: (await res.json()) as { ok: boolean; data?: Record<string, unknown> },
  };
}
const stored = async (id: string) =>
  db.sql<{ event_type: string; agent_id: string; payload: { data: Record<string, unknown> } }[]>`
    select event_type, agent_id, payload from app.webhook_inbox where source = 'steward' and source_event_id = ${id}`;
const count = async () =>
  Number((await db.sql`select count(*)::int as n from app.webhook_inbox`)[0]?.n);

const violation = {
  txId: "tx-1",
  results: [
    {
      policyId: "pol_1",
      type: "spending-limit",
      passed: false,
      reason: "Exceeds per-transaction limit",
    },
  ],
};

describe("Steward's deliveries", () => {
  it("policy.violation becomes policy.denied of our agent, with Steward's failed rule", async () => {
    const d = delivery("policy.violation", violation);
    expect(await post("policy", d)).toMatchObject({
      status: 200,
      body: { data: { received: true, duplicate: false } },
    });
    const [row] = await stored(d.deliveryId);
    expect(row).toMatchObject({ event_type: "policy.denied", agent_id: "agent-s" });
    expect(row?.payload.data).toMatchObject({
      evaluator: "spending-limit",
      code: "steward_spending_limit",
      reason: "Exceeds per-transaction limit",
      stewardTxId: "tx-1",
    });
  });

  it("a replayed delivery id stores nothing new", async () => {
    const d = delivery("tx.signed", { txId: "tx-2", txHash: `0x${"12".repeat(32)}` });
    await post("policy", d);
    const before = await count();
    const again = delivery(
      "tx.signed",
      { txId: "tx-2", txHash: `0x${"12".repeat(32)}` },
      { id: d.deliveryId },
    );
    expect(await post("policy", again)).toMatchObject({
      status: 200,
      body: { data: { duplicate: true } },
    });
    expect(await count()).toBe(before);
    expect((await stored(d.deliveryId))[0]?.event_type).toBe("policy.applied");
  });

  it("transaction.broadcasted on the sign path is transaction.sent; tx.pending on policy is needs_manual", async () => {
    const sent = delivery("transaction.broadcasted", {
      txId: "tx-3",
      txHash: `0x${"34".repeat(32)}`,
      chainId: 56,
    });
    expect((await post("sign", sent)).status).toBe(200);
    expect((await stored(sent.deliveryId))[0]?.event_type).toBe("transaction.sent");
    const held = delivery("tx.pending", violation);
    expect((await post("policy", held)).status).toBe(200);
    expect((await stored(held.deliveryId))[0]?.event_type).toBe("policy.needs_manual");
  });

  it("an event type the path does not take is acknowledged and stored nowhere", async () => {
    const before = await count();
    const d = delivery("user.created", {});
    expect(await post("policy", d)).toMatchObject({
      status: 200,
      body: { data: { ignored: true } },
    });
    expect(await count()).toBe(before);
  });

  it("a bad signature, a stale sent-at or an unknown agent stores nothing", async () => {
    const before = await count();
    const d = delivery("policy.violation", violation);
    const wrong = {
      ...d,
      headers: { ...d.headers, "x-steward-signature": `v2=${"0".repeat(64)}` },
    };
    expect((await post("policy", wrong)).status).toBe(401);
    const old = Math.floor(Date.now() / 1000) - 600;
    const stale = {
      ...d,
      headers: stewardDeliveryHeaders({
        secret: SECRET,
        body: d.body,
        deliveryId: d.deliveryId,
        eventType: "policy.violation",
        sentAt: old,
      }),
    };
    expect((await post("policy", stale)).status).toBe(401);
    const stranger = delivery("policy.violation", violation, { agentId: "agt_nobody" });
    expect((await post("policy", stranger)).status).toBe(400);
    expect(await count()).toBe(before);
  });
});
