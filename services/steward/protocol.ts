import { z } from "zod";

// Wire types of Steward's API as its source defines them (Steward-Fi/steward, packages/api
// routes agents.ts and vault.ts; @stwd/sdk 0.8.1 types.d.ts), shared by the client and the
// stand-in. docs/upstreams.md names the commit they were read from.

/** Every answer: `{ ok: true, data }` or `{ ok: false, error, data? }`. */
export type Envelope<T> = { ok: true; data: T } | { ok: false; error: string; data?: unknown };

/** `POST /agents` body. Steward keys the agent by an id of its own (`agt_…`). */
export type CreateAgentBody = { id?: string; name: string; platformId?: string };
/** The agent record of `POST /agents` and `GET /agents/:id`. */
export type AgentIdentity = {
  id: string;
  tenantId: string;
  name: string;
  walletAddress: `0x${string}`;
  walletAddresses?: { evm?: string; solana?: string };
  platformId?: string;
  createdAt: string;
};

/** `POST /vault/:agentId/sign` body; `broadcast` defaults to true and then needs an Idempotency-Key. */
export type SignTransactionBody = {
  to: `0x${string}`;
  /** wei, decimal string; required */
  value: string;
  data?: `0x${string}`;
  chainId?: number;
  broadcast?: boolean;
  gasLimit?: string;
};
/** One rule's verdict in a refusal or a pending approval. */
export type PolicyResult = { policyId: string; type: string; passed: boolean; reason?: string };
/** 403 `data`: refused by the agent's policy rules. */
export type PolicyRefusal = { txId: string; results: PolicyResult[] };
/** 202 `data` when a person has to approve the transaction first. */
export type PendingApproval = PolicyRefusal & { status: "pending_approval" };
/** 202 `data` when the broadcast may or may not have happened: the hash is known. */
export type OutcomeUnknown = {
  code: string;
  txId?: string;
  txHash: `0x${string}`;
  reconciliationRequired: true;
};
/**
 * What Steward answers (502 `{ok: false, error}`) when the chain refused a transaction before it
 * left the signer (its gas estimate): the node's text is never passed on, only one of these
 * classes (packages/api/src/services/rpc-error.ts). The transaction is recorded `failed`; the
 * same Idempotency-Key again is 409 `CHAIN_REFUSAL_REPEAT` with `data: {txId, status}`.
 */
export const CHAIN_REFUSALS = {
  insufficient_funds: "Insufficient funds for transaction",
  nonce: "Transaction nonce was rejected",
  fees: "Transaction fee parameters were rejected",
  execution: "Transaction execution was rejected",
} as const;
export type ChainRefusal = keyof typeof CHAIN_REFUSALS;
/** Steward's 409 for a key whose transaction is already recorded (here: `failed`). */
export const CHAIN_REFUSAL_REPEAT =
  "Transaction execution is already recorded; inspect its status before retrying";
/** Steward's 202 `error` when a signed transaction's broadcast failed and is not on the chain. */
export const OUTCOME_UNKNOWN_ERROR =
  "Broadcast outcome is unknown; reconcile the transaction hash before retrying";

/** `GET /vault/:agentId/transactions/:txId` (the subset the client reads). */
export type TxRecord = {
  id: string;
  agentId: string;
  status: TxStatus;
  txHash?: `0x${string}` | null;
  policyResults?: PolicyResult[];
};
export const TX_STATUSES = [
  "pending",
  "approved",
  "rejected",
  "signed",
  "broadcast",
  "confirmed",
  "failed",
  "outcome_unknown",
] as const;
export type TxStatus = (typeof TX_STATUSES)[number];

/** `PolicyRule` of `GET|PUT /agents/:id/policies` (a PUT body is the bare array). */
export type PolicyRule = {
  id: string;
  type: string;
  enabled: boolean;
  config: Record<string, unknown>;
};
/** The rule types Steward's policy engine knows (packages/shared PolicyType). */
export const POLICY_TYPES = [
  "spending-limit",
  "approved-addresses",
  "auto-approve-threshold",
  "time-window",
  "rate-limit",
  "allowed-chains",
  "condition-set",
  "aggregation",
  "contract-allowlist",
  "typed-data",
  "raw-signing-chain",
  "reputation-threshold",
  "reputation-scaling",
  "venue-allowlist",
  "leverage-cap",
] as const;

/** `POST /webhooks` body and the stored configuration (the secret is shown once, at creation). */
export type CreateWebhookBody = {
  url: string;
  events?: string[];
  description?: string;
  maxRetries?: number;
  retryBackoffMs?: number;
};
export type WebhookConfig = {
  id: string;
  tenantId: string;
  url: string;
  secret?: string;
  events: string[];
  enabled: boolean;
  maxRetries: number;
  retryBackoffMs: number;
  description?: string;
  createdAt: string;
  updatedAt: string;
};

/** `POST /vault/:agentId/sign-typed-data` body (EIP-712; Steward names the message `value`). */
export type SignTypedDataBody = {
  domain: Record<string, unknown>;
  types: Record<string, readonly { name: string; type: string }[]>;
  primaryType: string;
  value: Record<string, unknown>;
};

// The answers the client reads, checked field by field (services/http.ts parseUpstream): an
// answer that does not match is an error, never a value the saga or the API would use.
const Hex = z.string().regex(/^0x[0-9a-fA-F]*$/) as unknown as z.ZodType<`0x${string}`>;
const Address = z.string().regex(/^0x[0-9a-fA-F]{40}$/) as unknown as z.ZodType<`0x${string}`>;
const Hash = z.string().regex(/^0x[0-9a-fA-F]{64}$/) as unknown as z.ZodType<`0x${string}`>;
const Result = z.looseObject({
  policyId: z.string(),
  type: z.string(),
  passed: z.boolean(),
  reason: z.string().optional(),
});
/** Schemas of Steward's answers (`data` of the envelope), by the type they check. */
export const StewardAnswers = {
  Agent: z.looseObject({
    id: z.string().min(1).max(128),
    tenantId: z.string(),
    name: z.string(),
    walletAddress: Address,
    platformId: z.string().nullish(),
    createdAt: z.string(),
  }),
  Signed: z.looseObject({
    txId: z.string().min(1),
    txHash: Hash,
  }),
  Pending: z.looseObject({
    txId: z.string().min(1),
    status: z.literal("pending_approval"),
    results: z.array(Result),
  }),
  OutcomeUnknown: z.looseObject({
    code: z.string(),
    txId: z.string().optional(),
    txHash: Hash,
    reconciliationRequired: z.literal(true),
  }),
  Refusal: z.looseObject({
    txId: z.string(),
    results: z.array(Result),
  }),
  Tx: z.looseObject({
    id: z.string(),
    status: z.enum(TX_STATUSES),
    txHash: Hash.nullish(),
    policyResults: z.array(Result).nullish(),
  }),
  SignMessage: z.looseObject({ signature: Hex }),
  Addresses: z.looseObject({
    agentId: z.string(),
    addresses: z.array(z.looseObject({ chainFamily: z.string(), address: z.string() })),
  }),
  PolicyRules: z.array(
    z.looseObject({
      id: z.string(),
      type: z.string(),
      enabled: z.boolean(),
      config: z.record(z.string(), z.unknown()),
    }),
  ),
  SignTypedData: z.looseObject({ signature: Hex, txId: z.string().optional() }),
};

/** The envelope around `data`: a body without `ok` is not Steward's. */
export const EnvelopeAnswer = z.union([
  z.looseObject({ ok: z.literal(true), data: z.unknown() }),
  z.looseObject({ ok: z.literal(false), error: z.string(), data: z.unknown().optional() }),
]);
