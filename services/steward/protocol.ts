import { createHmac, timingSafeEqual } from "node:crypto";

/** Wire types of the steward signer API (v1), shared by the client and the stand-in. */
export type Wallet = { walletId: string; agentId: string; address: `0x${string}` };
export type SendTransactionBody = {
  to: `0x${string}`;
  /** wei, decimal string */
  value?: string;
  data?: `0x${string}`;
  gas?: string;
  /** The same key returns the same transaction (it is signed once and re-broadcast). */
  idempotencyKey: string;
};
export type SendTransactionResult = { txHash: `0x${string}`; policyId: string };
export type SignMessageResult = { signature: `0x${string}`; policyId: string };
export type PolicyRules = {
  /** Only these destination addresses (lowercase); unset: any. */
  toAllowlist?: string[];
  /** Largest `value` per transaction, wei string; unset: any. */
  maxValueWei?: string;
  /** approve(spender, …) only to these spenders; unset: any. */
  approveAllowlist?: string[];
  /** UTC hours in which signing is allowed; unset: all. */
  allowedUtcHours?: number[];
};
export type Policy = { policyId: string; version: number; rules: PolicyRules; createdAt: string };
export type PolicyDenied = {
  error: "policy_denied";
  evaluator: string;
  reason: string;
  policyId: string;
};

/** Webhook event the signer posts to `/v2/webhooks/steward/<kind>`. */
export type StewardWebhook = {
  sourceEventId: string;
  eventType: string;
  occurredAt: string;
  agentId: string;
  walletId: string;
  data: Record<string, unknown>;
};

/** Header value `t=<unix ms>,v1=<hex HMAC-SHA256 of "t.body">` (SPEC.md "Other"). */
export function signWebhook(secret: string, body: string, t: number = Date.now()): string {
  const v1 = createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");
  return `t=${t},v1=${v1}`;
}

/** Largest distance between a webhook's timestamp and our clock (SPEC.md: 5 minutes). */
export const WEBHOOK_TOLERANCE_MS = 5 * 60_000;

/**
 * Checks a webhook signature header in constant time; false when malformed, stale or wrong.
 *
 * @example
 * verifyWebhook(secret, rawBody, c.req.header("x-webhook-signature"));
 */
export function verifyWebhook(
  secret: string,
  body: string,
  header: string | undefined,
  now: number = Date.now(),
): boolean {
  const m = /^t=(\d{1,16}),v1=([0-9a-f]{64})$/.exec(header ?? "");
  if (!m) return false;
  const t = Number(m[1]);
  if (Math.abs(now - t) > WEBHOOK_TOLERANCE_MS) return false;
  const want = createHmac("sha256", secret).update(`${t}.${body}`).digest();
  return timingSafeEqual(want, Buffer.from(m[2] as string, "hex"));
}
