import { createHmac, timingSafeEqual } from "node:crypto";

// Steward's own delivery format (Steward-Fi/steward packages/webhooks: dispatcher.ts and
// verify.ts, read at the commit docs/upstreams.md names): one POST per event with headers
//   X-Steward-Event, X-Steward-Delivery-Id (stable across retries), X-Steward-Sent-At and
//   X-Steward-Timestamp (unix seconds of this attempt), X-Steward-Signature: v2=<hex>
// where the hex is HMAC-SHA256(secret, "v2:<sentAt>.<len(id)>:<id>.<len(type)>:<type>.<body>")
// and the body is the JSON of `{ type, tenantId, agentId, data, timestamp, deliveryId, signedAt }`.

export const STEWARD_HEADERS = {
  event: "x-steward-event",
  deliveryId: "x-steward-delivery-id",
  sentAt: "x-steward-sent-at",
  timestamp: "x-steward-timestamp",
  signature: "x-steward-signature",
} as const;

/** The receiver's freshness window, as Steward's own verifier defaults to (seconds). */
export const STEWARD_TOLERANCE_SECONDS = 300;

/** The body Steward posts (packages/shared WebhookEvent, serialized). */
export type StewardEvent = {
  type: string;
  tenantId: string;
  agentId?: string;
  data: Record<string, unknown>;
  /** ISO 8601: when the event happened. */
  timestamp: string;
  deliveryId?: string;
  signedAt?: number;
};

/** The material Steward signs: field boundaries are length-prefixed so they cannot shift. */
export function canonicalSignedPayload(
  sentAt: string,
  deliveryId: string,
  eventType: string,
  body: string,
): string {
  return `v2:${sentAt}.${deliveryId.length}:${deliveryId}.${eventType.length}:${eventType}.${body}`;
}

/** The headers of one delivery attempt, as Steward's dispatcher sends them. */
export function stewardDeliveryHeaders(p: {
  secret: string;
  body: string;
  deliveryId: string;
  eventType: string;
  sentAt?: number;
}): Record<string, string> {
  const sentAt = String(p.sentAt ?? Math.floor(Date.now() / 1000));
  const hex = createHmac("sha256", p.secret)
    .update(canonicalSignedPayload(sentAt, p.deliveryId, p.eventType, p.body))
    .digest("hex");
  return {
    "content-type": "application/json",
    [STEWARD_HEADERS.event]: p.eventType,
    [STEWARD_HEADERS.timestamp]: sentAt,
    [STEWARD_HEADERS.sentAt]: sentAt,
    [STEWARD_HEADERS.signature]: `v2=${hex}`,
    [STEWARD_HEADERS.deliveryId]: p.deliveryId,
  };
}

export type StewardVerdict =
  | { ok: true; deliveryId: string; eventType: string }
  | { ok: false; message: string };

/**
 * Checks a Steward delivery: the four headers present, `X-Steward-Sent-At` within the
 * tolerance, and the v2 HMAC over the raw body compared in constant time. Never throws.
 *
 * @example
 * const v = verifyStewardDelivery({ secret, body: raw, header: (n) => c.req.header(n) });
 */
export function verifyStewardDelivery(p: {
  secret: string;
  body: string;
  header: (name: string) => string | undefined;
  nowSeconds?: number;
}): StewardVerdict {
  const deliveryId = p.header(STEWARD_HEADERS.deliveryId)?.trim() ?? "";
  const eventType = p.header(STEWARD_HEADERS.event)?.trim() ?? "";
  const sentAt = p.header(STEWARD_HEADERS.sentAt) ?? "";
  const signature = p.header(STEWARD_HEADERS.signature) ?? "";
  if (!deliveryId || deliveryId.length > 200 || !eventType || eventType.length > 100) {
    return { ok: false, message: "X-Steward-Delivery-Id or X-Steward-Event missing or too long" };
  }
  if (!/^(0|[1-9]\d{0,15})$/.test(sentAt)) {
    return { ok: false, message: "X-Steward-Sent-At must be unix seconds" };
  }
  const now = p.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(sentAt)) > STEWARD_TOLERANCE_SECONDS) {
    return { ok: false, message: "X-Steward-Sent-At is outside the 5 minute tolerance" };
  }
  const m = /^v2=([0-9a-f]{64})$/.exec(signature);
  if (!m) return { ok: false, message: "X-Steward-Signature must be v2=<64 hex>" };
  const want = createHmac("sha256", p.secret)
    .update(canonicalSignedPayload(sentAt, deliveryId, eventType, p.body))
    .digest();
  const got = Buffer.from(m[1] as string, "hex");
  if (got.length !== want.length || !timingSafeEqual(got, want)) {
    return { ok: false, message: "X-Steward-Signature does not match" };
  }
  return { ok: true, deliveryId, eventType };
}
