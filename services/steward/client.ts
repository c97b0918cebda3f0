import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { parseUpstream, UpstreamError, upstreamJson } from "../http.ts";
import {
  StewardAnswers as A,
  type AgentIdentity,
  CHAIN_REFUSAL_REPEAT,
  CHAIN_REFUSALS,
  type ChainRefusal,
  type CreateWebhookBody,
  EnvelopeAnswer,
  type PolicyResult,
  type PolicyRule,
  type SignTypedDataBody,
} from "./protocol.ts";

export type StewardClientParameters = {
  url: string;
  /** Tenant API key, sent as `X-Steward-Key`; never logged. */
  apiKey: string;
  /** Sent as `X-Steward-Tenant`. */
  tenantId: string;
  timeoutMs: number;
  /** The chain every transaction names (BSC: 56). */
  chainId?: number;
  /** A 202 pending_approval is polled this long (0: not polled) every pollMs. */
  approvalWaitMs?: number;
  approvalPollMs?: number;
};

/** The agent's wallet at Steward: `walletId` is Steward's agent id, `agentId` ours. */
export type Wallet = { walletId: string; agentId: string; address: `0x${string}` };
export type SendTransactionBody = {
  to: `0x${string}`;
  /** wei, decimal string; "0" when absent */
  value?: string;
  data?: `0x${string}`;
  gas?: string;
  /** Sent as `Idempotency-Key` (scoped to the wallet): a repeat never signs twice. */
  idempotencyKey: string;
};
export type SendTransactionResult = {
  txHash: `0x${string}`;
  txId: string;
  /** `unknown`: Steward signed but could not tell whether the broadcast went out. */
  outcome: "sent" | "unknown";
};

const Envelope = EnvelopeAnswer;
const okData = z.looseObject({ ok: z.literal(true), data: z.unknown() });

/**
 * Typed client of Steward's REST API (the same code talks to the real service and to the local
 * stand-in, `devnet/stand-ins/steward/server.ts`). Every call sends the tenant headers and
 * reads the `{ok, data}` envelope; every failure is an `UpstreamError` (service "steward"): a
 * body that is not the envelope or not the promised `data` is `bad_response`, never retried.
 * Not @stwd/sdk: it has no per-call timeout and cannot send `Idempotency-Key` (docs/upstreams.md).
 *
 * @example
 * const steward = createStewardClient({ url, apiKey, tenantId, timeoutMs: 10_000 });
 * const wallet = await steward.provisionWallet({ agentId });
 */
export function createStewardClient(p: StewardClientParameters) {
  const chainId = p.chainId ?? 56;
  const raw = (
    method: "GET" | "POST" | "PUT",
    path: string,
    o: { json?: unknown; idempotencyKey?: string } = {},
  ) =>
    upstreamJson({
      refused: chainRefused,
      service: "steward",
      url: `${p.url}${path}`,
      method,
      json: o.json,
      headers: {
        accept: "application/json",
        "x-steward-key": p.apiKey,
        "x-steward-tenant": p.tenantId,
        ...(o.idempotencyKey ? { "idempotency-key": o.idempotencyKey } : {}),
      },
      timeoutMs: p.timeoutMs,
      schema: Envelope,
    });
  /** A 2xx with `ok: true`: its `data` checked against the schema. */
  const call = async <S extends z.ZodType>(
    schema: S,
    method: "GET" | "POST" | "PUT",
    path: string,
    o: { json?: unknown; idempotencyKey?: string } = {},
  ): Promise<z.output<S>> => {
    const body = parseUpstream("steward", okData, await raw(method, path, o), path);
    return parseUpstream("steward", schema, body.data, path);
  };
  const enc = encodeURIComponent;
  const wallet = (a: AgentIdentity | z.output<typeof A.Agent>, agentId: string): Wallet => ({
    walletId: a.id,
    agentId,
    address: a.walletAddress.toLowerCase() as `0x${string}`,
  });

  const client = {
    /**
     * Find-or-create keyed by our agent id: a Steward that kept our id answers `GET`; else one
     * `POST /agents` under the Idempotency-Key `agent:<id>`, so a retry, a preview or a crash
     * before the caller stored the answer gets the same agent back, never a second wallet.
     */
    provisionWallet: async (a: { agentId: string; name?: string }): Promise<Wallet> => {
      try {
        return wallet(await call(A.Agent, "GET", `/agents/${enc(a.agentId)}`), a.agentId);
      } catch (error) {
        if (!(error instanceof UpstreamError && error.refusedWith(404))) throw error;
      }
      const created = await call(A.Agent, "POST", "/agents", {
        json: { id: a.agentId, name: a.name ?? a.agentId, platformId: a.agentId },
        idempotencyKey: `agent:${a.agentId}`,
      });
      return wallet(created, a.agentId);
    },
    getWallet: async (walletId: string) =>
      call(A.Agent, "GET", `/agents/${enc(walletId)}`).then((w) => wallet(w, w.platformId ?? "")),
    getAddresses: (walletId: string) =>
      call(A.Addresses, "GET", `/vault/${enc(walletId)}/addresses`),
    /**
     * Signs and broadcasts on `chainId` under an Idempotency-Key: a repeat returns the first
     * answer. 202 pending_approval is polled (never sent again); outcome_unknown returns the
     * hash Steward signed (the caller's receipt wait settles it); a 403 policy refusal is an
     * UpstreamError the callers read with `stewardRefusal`, a chain's refusal (502, or 409 for
     * a key already failed) one they read with `stewardChainRefusal`.
     */
    sendTransaction: async (
      walletId: string,
      tx: SendTransactionBody,
    ): Promise<SendTransactionResult> => {
      const path = `/vault/${enc(walletId)}/sign`;
      const answer = await raw("POST", path, {
        json: {
          to: tx.to,
          value: tx.value ?? "0",
          ...(tx.data ? { data: tx.data } : {}),
          chainId,
          broadcast: true,
          ...(tx.gas ? { gasLimit: tx.gas } : {}),
        },
        idempotencyKey: `${walletId}:${tx.idempotencyKey}`,
      });
      if (answer.ok) {
        const s = parseUpstream("steward", A.Signed, answer.data, path);
        return { txHash: s.txHash, txId: s.txId, outcome: "sent" };
      }
      const pending = A.Pending.safeParse(answer.data);
      if (pending.success) return client.awaitApproval(walletId, pending.data);
      const unknown = parseUpstream("steward", A.OutcomeUnknown, answer.data, path);
      return { txHash: unknown.txHash, txId: unknown.txId ?? "", outcome: "unknown" };
    },
    /** Polls a pending transaction until it is sent, refused, or the wait is over. */
    awaitApproval: async (
      walletId: string,
      pending: z.output<typeof A.Pending>,
    ): Promise<SendTransactionResult> => {
      const path = `/vault/${enc(walletId)}/transactions/${enc(pending.txId)}`;
      const until = Date.now() + (p.approvalWaitMs ?? 0);
      let results: PolicyResult[] = pending.results;
      for (;;) {
        if (Date.now() >= until) break;
        await sleep(p.approvalPollMs ?? 1_000);
        const t = await call(A.Tx, "GET", path);
        results = t.policyResults ?? results;
        if (t.txHash && ["signed", "broadcast", "confirmed"].includes(t.status)) {
          return { txHash: t.txHash, txId: t.id, outcome: "sent" };
        }
        if (t.txHash && t.status === "outcome_unknown") {
          return { txHash: t.txHash, txId: t.id, outcome: "unknown" };
        }
        if (t.status === "rejected" || t.status === "failed") {
          throw refusal(403, "Transaction rejected", { txId: t.id, results });
        }
      }
      throw refusal(202, "Transaction requires manual approval", {
        txId: pending.txId,
        results,
        status: "pending_approval",
      });
    },
    /** EIP-191 personal_sign of a UTF-8 message by the agent's wallet. */
    signMessage: (walletId: string, message: string) =>
      call(A.SignMessage, "POST", `/vault/${enc(walletId)}/sign-message`, { json: { message } }),
    /** Steward's policy rules of the agent (spending-limit, approved-addresses, ...). */
    getPolicyRules: (walletId: string) =>
      call(A.PolicyRules, "GET", `/agents/${enc(walletId)}/policies`),
    /** Replaces the rule set (the body is the bare array, as Steward takes it). */
    setPolicyRules: (walletId: string, rules: PolicyRule[]) =>
      call(A.PolicyRules, "PUT", `/agents/${enc(walletId)}/policies`, { json: rules }),
    /** Registers a delivery URL; the answer carries the signing secret once. */
    createWebhook: (body: CreateWebhookBody) =>
      call(z.looseObject({ id: z.string(), url: z.string() }), "POST", "/webhooks", {
        json: body,
      }),
    /**
     * EIP-712 signature by the agent's wallet (`POST /vault/:agentId/sign-typed-data`): the
     * perps venue's L1 actions. Steward signs it only under a `typed-data` rule that admits
     * the domain (stewardRules writes one); a refusal is the same 403 `{txId, results}`.
     */
    signTypedData: (walletId: string, body: SignTypedDataBody) =>
      call(A.SignTypedData, "POST", `/vault/${enc(walletId)}/sign-typed-data`, { json: body }),
  };
  return client;
}

export type StewardClient = ReturnType<typeof createStewardClient>;

function refusal(status: number, error: string, data: Record<string, unknown>) {
  return new UpstreamError("steward", "rejected", `refused with ${status}`, {
    status,
    details: JSON.stringify({ ok: false, error, data }),
  });
}

/** A policy refusal (403) or a transaction held for a person (202), as the callers map it. */
export type StewardRefusal = {
  manual: boolean;
  txId: string;
  results: PolicyResult[];
};

/**
 * The refusal an error carries, or undefined when it is not one (a 403 without `results` is
 * Steward refusing our credentials, not a policy).
 *
 * @example
 * const r = stewardRefusal(error); if (r?.manual) ...
 */
export function stewardRefusal(error: unknown): StewardRefusal | undefined {
  if (!(error instanceof UpstreamError) || error.service !== "steward") return undefined;
  if (error.kind !== "rejected" || (error.status !== 403 && error.status !== 202)) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(error.details ?? "");
  } catch {
    return undefined;
  }
  const data = A.Refusal.safeParse((body as { data?: unknown } | null)?.data);
  if (!data.success) return undefined;
  return {
    manual: error.status === 202,
    txId: data.data.txId,
    results: data.data.results,
  };
}

/** Steward's 502 naming the chain's refusal: final for this key, so never retried. */
function chainRefused(status: number, text: string): boolean {
  return status === 502 && chainRefusalOf(text) !== undefined;
}

function chainRefusalOf(text: string): ChainRefusal | undefined {
  let error: unknown;
  try {
    error = (JSON.parse(text) as { error?: unknown } | null)?.error;
  } catch {
    return undefined;
  }
  const found = Object.entries(CHAIN_REFUSALS).find(([, m]) => m === error);
  return found?.[0] as ChainRefusal | undefined;
}

/** The chain refused the wallet's transaction at the signer: nothing was sent. */
export type StewardChainRefusal = {
  /** The class Steward names (`insufficient_funds`, ...), or `failed` for a repeat of one. */
  reason: ChainRefusal | "failed";
  message: string;
  txId?: string;
};

/**
 * The chain's refusal an error carries (Steward's 502 with its class, or its 409 for the same
 * key again, whose transaction is recorded `failed`), or undefined when it is not one.
 *
 * @example
 * const r = stewardChainRefusal(error); if (r?.reason === "insufficient_funds") ...
 */
export function stewardChainRefusal(error: unknown): StewardChainRefusal | undefined {
  if (!(error instanceof UpstreamError) || error.service !== "steward") return undefined;
  if (error.kind !== "rejected") return undefined;
  const text = error.details ?? "";
  if (error.status === 502) {
    const reason = chainRefusalOf(text);
    return reason ? { reason, message: CHAIN_REFUSALS[reason] } : undefined;
  }
  if (error.status !== 409) return undefined;
  let body: { error?: unknown; data?: { txId?: unknown; status?: unknown } } | null;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (body?.error !== CHAIN_REFUSAL_REPEAT || body.data?.status !== "failed") return undefined;
  return {
    reason: "failed",
    message: "Steward recorded this transaction as failed (the chain refused it)",
    txId: typeof body.data.txId === "string" ? body.data.txId : undefined,
  };
}
