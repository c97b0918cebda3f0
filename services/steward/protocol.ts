import { createHmac } from "node:crypto";
import { z } from "zod";
import {
  type PolicyActor,
  PolicyRules,
  type PolicyRulesInput,
  type PolicyVersion,
} from "../../lib/policy/model.ts";

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
export type SendTransactionResult = {
  txHash: `0x${string}`;
  policyId: string;
  version?: number;
};
export type SignMessageResult = { signature: `0x${string}`; policyId: string };

/** The policy document and its versions (lib/policy/model.ts is the schema). */
export type { PolicyActor, PolicyRulesInput, PolicyVersion };
/** The active version (kept under its old name for the dashboard). */
export type Policy = PolicyVersion;
export type ReplacePolicyBody = { rules: PolicyRulesInput; actor: PolicyActor };

/** A perps venue action to sign (Hyperliquid L1 action, PROTOCOLS.md 1.3-1.4). */
export type SignPerpsBody = {
  action: Record<string, unknown>;
  /** The venue nonce (ms); the signer refuses one it has already signed. */
  nonce: number;
};
/** The `/exchange` body, signed, ready for the venue. */
export type SignPerpsResult = {
  exchange: {
    action: Record<string, unknown>;
    nonce: number;
    signature: { r: `0x${string}`; s: `0x${string}`; v: number };
    vaultAddress: null;
  };
  policyId: string;
  version: number;
};

/** The 403 body of a refused signing call (`policy_needs_manual`: held for a person). */
export type PolicyDenied = {
  error: "policy_denied" | "policy_needs_manual";
  evaluator: string;
  code: string;
  reason: string;
  policyId: string;
  version: number;
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

// The answers the client reads, checked field by field (services/http.ts parseUpstream): an
// answer that does not match is an error, never a value the saga or the API would use.
const Hex = z.string().regex(/^0x[0-9a-fA-F]*$/) as unknown as z.ZodType<`0x${string}`>;
const Address = z.string().regex(/^0x[0-9a-fA-F]{40}$/) as unknown as z.ZodType<`0x${string}`>;
const Hash = z.string().regex(/^0x[0-9a-fA-F]{64}$/) as unknown as z.ZodType<`0x${string}`>;

/** Schemas of the signer's answers, by the type they check. */
export const StewardAnswers = {
  Wallet: z.looseObject({
    walletId: z.string().min(1),
    agentId: z.string().min(1),
    address: Address,
  }) satisfies z.ZodType<Wallet>,
  SendTransactionResult: z.looseObject({
    txHash: Hash,
    policyId: z.string(),
    version: z.number().int().optional(),
  }) satisfies z.ZodType<SendTransactionResult>,
  SignMessageResult: z.looseObject({
    signature: Hex,
    policyId: z.string(),
  }) satisfies z.ZodType<SignMessageResult>,
  PolicyVersion: z.looseObject({
    policyId: z.string(),
    version: z.number().int().min(1),
    rules: PolicyRules,
    createdAt: z.string(),
    createdBy: z.object({ kind: z.enum(["agent", "operator", "signer"]), id: z.string() }),
  }) satisfies z.ZodType<PolicyVersion, unknown>,
  SignPerpsResult: z.looseObject({
    exchange: z.object({
      action: z.record(z.string(), z.unknown()),
      nonce: z.number().int(),
      signature: z.object({ r: Hash, s: Hash, v: z.number().int() }),
      vaultAddress: z.null(),
    }),
    policyId: z.string(),
    version: z.number().int(),
  }) satisfies z.ZodType<SignPerpsResult>,
};
