import { createHmac } from "node:crypto";

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
