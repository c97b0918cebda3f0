import type { Sql } from "../../db/client.ts";
import { newId } from "./envelope.ts";
import { OutboundWebhookError } from "./errors.ts";
import { OUTBOUND_CHANNEL } from "./timing.ts";

export const DELIVERY_STATUSES = [
  "held",
  "pending",
  "delivering",
  "succeeded",
  "failed",
  "cancelled",
] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export type AttemptView = {
  attempt: number;
  startedAt: Date;
  latencyMs: number | null;
  statusCode: number | null;
  error: string | null;
  outcome: "succeeded" | "failed" | "interrupted" | null;
};

export type DeliveryView = {
  deliveryId: string;
  subscriptionId: string;
  webhookId: string;
  eventId: bigint | null;
  eventType: string;
  occurredAt: Date;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  finishedAt: Date | null;
  log: AttemptView[];
};

const COLUMNS = `delivery_id as "deliveryId", subscription_id as "subscriptionId",
  webhook_id as "webhookId", event_id as "eventId", event_type as "eventType",
  occurred_at as "occurredAt", status, attempts, next_attempt_at as "nextAttemptAt",
  last_attempt_at as "lastAttemptAt", last_status_code as "lastStatusCode",
  last_error as "lastError", created_at as "createdAt", finished_at as "finishedAt"`;

/** Attempts listed per delivery: the most recent ones. */
const LOG_ATTEMPTS = 20;

export type ListDeliveriesParameters = {
  subscriptionId: string;
  status?: DeliveryStatus;
  limit: number;
  /** The last item of the previous page: (createdAt, deliveryId). */
  before?: { createdAt: Date; deliveryId: string };
};

/** A subscription's deliveries, newest first, each with its latest attempts. */
export async function listDeliveries(
  sql: Sql,
  p: ListDeliveriesParameters,
): Promise<DeliveryView[]> {
  const rows = await sql<Omit<DeliveryView, "log">[]>`
    select ${sql.unsafe(COLUMNS)} from app.webhook_deliveries
    where subscription_id = ${p.subscriptionId}
      ${p.status ? sql`and status = ${p.status}` : sql``}
      ${p.before ? sql`and (created_at, delivery_id) < (${p.before.createdAt}, ${p.before.deliveryId})` : sql``}
    order by created_at desc, delivery_id desc
    limit ${p.limit}`;
  if (rows.length === 0) return [];
  const attempts = await sql<(AttemptView & { deliveryId: string })[]>`
    select delivery_id as "deliveryId", attempt, started_at as "startedAt",
      latency_ms as "latencyMs", status_code as "statusCode", error, outcome
    from (
      select a.*, row_number() over (partition by delivery_id order by attempt desc) as rn
      from app.webhook_attempts a where delivery_id = any(${rows.map((r) => r.deliveryId)})
    ) x where rn <= ${LOG_ATTEMPTS}
    order by attempt`;
  return rows.map((r) => ({
    ...r,
    log: attempts.filter((a) => a.deliveryId === r.deliveryId).map(({ deliveryId: _, ...a }) => a),
  }));
}

/**
 * Sends a delivery again now, with a fresh retry cycle and the same `webhook-id` and body.
 * A delivery in flight keeps its attempt; a held chain event waits for finality.
 */
export async function redeliver(
  sql: Sql,
  p: { subscriptionId: string; deliveryId: string },
): Promise<DeliveryView> {
  const [row] = await sql<{ status: DeliveryStatus }[]>`
    select status from app.webhook_deliveries
    where delivery_id = ${p.deliveryId} and subscription_id = ${p.subscriptionId}`;
  if (!row) {
    throw new OutboundWebhookError("WEBHOOK_NOT_FOUND", { message: `no delivery ${p.deliveryId}` });
  }
  if (row.status === "held" || row.status === "cancelled") {
    throw new OutboundWebhookError("DELIVERY_NOT_SENDABLE", {
      message:
        row.status === "held"
          ? "this chain event is not final yet; it is sent once its block is final"
          : "this chain event was removed by a reorganisation; there is nothing to send",
    });
  }
  await sql.begin(async (tx) => {
    await tx`update app.webhook_deliveries
      set status = case when status = 'delivering' then status else 'pending' end,
        next_attempt_at = now(), cycle_started_at = now(), cycle_attempts = 0, finished_at = null
      where delivery_id = ${p.deliveryId}`;
    await tx`select pg_notify(${OUTBOUND_CHANNEL}, '')`;
  });
  const [view] = await getDeliveries(sql, [p.deliveryId]);
  return view as DeliveryView;
}

/**
 * Queues a `webhook.test` delivery to the subscription (even a disabled one: it is how a
 * receiver is checked before enabling). Its body says it is a test; it has its own webhook-id.
 */
export async function queueTestDelivery(
  sql: Sql,
  p: { subscriptionId: string; agentId: string },
): Promise<DeliveryView> {
  const deliveryId = newId("whdel");
  const now = new Date();
  const body = JSON.stringify({
    type: "webhook.test",
    timestamp: now.toISOString(),
    data: {
      subscriptionId: p.subscriptionId,
      agentId: p.agentId,
      message: "Test event: your endpoint receives and verifies this subscription's webhooks.",
    },
  });
  await sql.begin(async (tx) => {
    await tx`insert into app.webhook_deliveries (delivery_id, subscription_id, event_id,
        webhook_id, event_type, occurred_at, status, body, cycle_started_at, next_attempt_at)
      values (${deliveryId}, ${p.subscriptionId}, null, ${newId("msg")}, 'webhook.test', ${now},
        'pending', ${body}, ${now}, ${now})`;
    await tx`select pg_notify(${OUTBOUND_CHANNEL}, '')`;
  });
  return (await getDeliveries(sql, [deliveryId]))[0] as DeliveryView;
}

async function getDeliveries(sql: Sql, ids: string[]): Promise<DeliveryView[]> {
  const rows = await sql<Omit<DeliveryView, "log">[]>`
    select ${sql.unsafe(COLUMNS)} from app.webhook_deliveries where delivery_id = any(${ids})`;
  const attempts = await sql<(AttemptView & { deliveryId: string })[]>`
    select delivery_id as "deliveryId", attempt, started_at as "startedAt",
      latency_ms as "latencyMs", status_code as "statusCode", error, outcome
    from app.webhook_attempts where delivery_id = any(${ids}) order by attempt`;
  return rows.map((r) => ({
    ...r,
    log: attempts
      .filter((a) => a.deliveryId === r.deliveryId)
      .slice(-LOG_ATTEMPTS)
      .map(({ deliveryId: _, ...a }) => a),
  }));
}
