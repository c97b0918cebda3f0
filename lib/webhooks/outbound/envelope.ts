import { createHash, randomBytes } from "node:crypto";
import { feedItem } from "../../events/feed-item.ts";
import type { AgentEventRow } from "../../events/store.ts";

/**
 * The body of a delivery: the Standard Webhooks envelope `{type, timestamp, data}` around the
 * feed item, serialised once and stored, so every attempt signs and sends the same bytes.
 *
 * @example
 * const body = deliveryBody(row); // '{"type":"pr.merged","timestamp":"…","data":{…}}'
 */
export function deliveryBody(e: AgentEventRow): string {
  return JSON.stringify({
    type: e.eventType,
    timestamp: e.occurredAt.toISOString(),
    data: feedItem(e),
  });
}

/**
 * The `webhook-id` of an event's delivery to a subscription: derived, so it is the same on
 * every attempt and redelivery and receivers can dedupe on it.
 *
 * @example
 * webhookId("whsub_x", 42n); // "msg_3q2…"
 */
export function webhookId(subscriptionId: string, eventId: bigint): string {
  const h = createHash("sha256").update(`${subscriptionId}:${eventId}`).digest("base64url");
  return `msg_${h.slice(0, 27)}`;
}

/** A random id with a prefix (subscriptions, deliveries, test messages). */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(16).toString("base64url")}`;
}
