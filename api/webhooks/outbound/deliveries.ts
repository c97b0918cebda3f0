import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Sql } from "../../../lib/db/client.ts";
import {
  DELIVERY_STATUSES,
  type DeliveryView,
  listDeliveries,
  queueTestDelivery,
  redeliver,
} from "../../../lib/webhooks/outbound/deliveries.ts";
import { getSubscription } from "../../../lib/webhooks/outbound/subscriptions.ts";
import type { AppEnv } from "../../env.ts";
import { malformedCursor, pageOf } from "../../http/cursor.ts";
import {
  CursorQuery,
  cursorList,
  errorResponse,
  jsonResponse,
  okEnvelope,
  oneOf,
} from "../../http/schemas.ts";
import { agentOf } from "../../middleware/agent-path/index.ts";
import {
  Delivery,
  SUBSCRIPTION_PATH,
  SubParams,
  subscriptionOf,
  WEBHOOK_ERRORS,
  webhookRoute,
} from "./schemas.ts";

function deliveryView(v: DeliveryView) {
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  return {
    ...v,
    eventId: v.eventId === null ? null : String(v.eventId),
    occurredAt: v.occurredAt.toISOString(),
    nextAttemptAt: iso(v.nextAttemptAt),
    lastAttemptAt: iso(v.lastAttemptAt),
    createdAt: v.createdAt.toISOString(),
    finishedAt: iso(v.finishedAt),
    log: v.log.map((a) => ({ ...a, startedAt: a.startedAt.toISOString() })),
  };
}

/** The deliveries cursor: the last item's (createdAt, deliveryId), opaque to clients. */
function encodeCursor(v: DeliveryView): string {
  return Buffer.from(`${v.createdAt.toISOString()}|${v.deliveryId}`).toString("base64url");
}
function decodeCursor(cursor: string): { createdAt: Date; deliveryId: string } {
  const m = /^(\d{4}-\d\d-\d\dT[\d:.]+Z)\|(whdel_[A-Za-z0-9_-]{1,40})$/.exec(
    /^[A-Za-z0-9_-]{1,120}$/.test(cursor) ? Buffer.from(cursor, "base64url").toString() : "",
  );
  if (!m?.[1] || !m[2]) {
    throw malformedCursor();
  }
  return { createdAt: new Date(m[1]), deliveryId: m[2] };
}

/**
 * A subscription's delivery log, redelivery and the test event. The API only queues: the
 * worker's dispatcher sends (woken by NOTIFY outbound_deliveries).
 */
export function registerWebhookDeliveries(app: OpenAPIHono<AppEnv>, d: { sql: Sql }) {
  app.openapi(
    webhookRoute({
      method: "post",
      path: `${SUBSCRIPTION_PATH}/test`,
      summary: "Send a webhook.test event to the subscription (even a disabled one)",
      request: { params: SubParams },
      responses: {
        202: jsonResponse("Queued; follow it in the deliveries", okEnvelope(Delivery)),
        ...WEBHOOK_ERRORS,
      },
    }),
    async (c) => {
      const { agentId, subscriptionId } = subscriptionOf(c);
      await getSubscription(d.sql, agentId, subscriptionId);
      const v = await queueTestDelivery(d.sql, { subscriptionId, agentId });
      return c.json({ ok: true as const, data: deliveryView(v) }, 202);
    },
  );

  app.openapi(
    webhookRoute({
      method: "get",
      path: `${SUBSCRIPTION_PATH}/deliveries`,
      summary: "The subscription's deliveries, newest first, with their attempts",
      request: {
        params: SubParams,
        query: z.object({
          status: oneOf(DELIVERY_STATUSES).optional(),
          ...CursorQuery.shape,
        }),
      },
      responses: {
        200: jsonResponse("A page of deliveries", okEnvelope(cursorList(Delivery))),
        ...WEBHOOK_ERRORS,
      },
    }),
    async (c) => {
      const { agentId, subscriptionId } = subscriptionOf(c);
      const q = c.req.valid("query");
      const before = q.cursor ? decodeCursor(q.cursor) : undefined;
      await getSubscription(d.sql, agentId, subscriptionId);
      const rows = await listDeliveries(d.sql, {
        subscriptionId,
        status: q.status,
        limit: q.limit + 1,
        before,
      });
      const { page, nextCursor } = pageOf(rows, q.limit, encodeCursor);
      return c.json(
        { ok: true as const, data: { items: page.map(deliveryView), nextCursor } },
        200,
      );
    },
  );

  app.openapi(
    webhookRoute({
      method: "post",
      path: `${SUBSCRIPTION_PATH}/deliveries/{deliveryId}/redeliver`,
      summary: "Send a delivery again now (same webhook-id and body, a fresh retry schedule)",
      request: { params: SubParams.extend({ deliveryId: z.string().min(1).max(64) }) },
      responses: {
        202: jsonResponse("Queued", okEnvelope(Delivery)),
        409: errorResponse("conflict: a chain event not final yet, or removed by a reorg"),
        ...WEBHOOK_ERRORS,
      },
    }),
    async (c) => {
      const { subscriptionId, deliveryId } = c.req.valid("param");
      const { agentId } = agentOf(c);
      await getSubscription(d.sql, agentId, subscriptionId);
      const v = await redeliver(d.sql, { subscriptionId, deliveryId });
      return c.json({ ok: true as const, data: deliveryView(v) }, 202);
    },
  );
}
