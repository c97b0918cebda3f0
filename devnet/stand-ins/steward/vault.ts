import { randomUUID } from "node:crypto";
import { Hono } from "hono";
import { type Hex, keccak256, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import {
  CHAIN_REFUSAL_REPEAT,
  CHAIN_REFUSALS,
  OUTCOME_UNKNOWN_ERROR,
  type TxRecord,
} from "../../../services/steward/protocol.ts";
import type { Emit } from "./outbox.ts";
import { refuse } from "./refusal.ts";
import { evaluateRules } from "./rules.ts";
import type { StewardStore } from "./store.ts";
import { typedDataRoute } from "./typed-data.ts";

export type VaultDeps = {
  store: StewardStore;
  lock: <T>(key: string, fn: () => Promise<T>) => Promise<T>;
  now: () => Date;
  chainId: number;
  client: PublicClient;
  emit: Emit;
};

type SignBody = {
  to?: unknown;
  value?: unknown;
  data?: unknown;
  chainId?: unknown;
  broadcast?: unknown;
  gasLimit?: unknown;
};
const bad = (error: string) => ({ ok: false as const, error });
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const UINT = /^(0|[1-9]\d{0,77})$/;

/**
 * `/vault/:agentId/*` as Steward answers it: sign (validated as Steward does; a broadcast needs
 * `Idempotency-Key`; refused 403 `{txId, results}`, held 202 `pending_approval`, a wallet that
 * cannot pay 502 `Insufficient funds for transaction` (then 409 for its key), a broadcast the
 * chain refused 202 `outcome_unknown`, else 200 `{txId, txHash}`), the transaction record,
 * sign-message, sign-typed-data and the addresses.
 * The agent's Steward rules are enforced for the types rules.ts knows (docs/upstreams.md).
 */
export function vaultRoutes(d: VaultDeps) {
  const app = new Hono();
  app.get("/:agentId/addresses", (c) => {
    const w = d.store.wallet(c.req.param("agentId"));
    if (!w) return c.json(bad("Agent not found"), 404);
    return c.json({
      ok: true,
      data: { agentId: w.walletId, addresses: [{ chainFamily: "evm", address: w.address }] },
    });
  });
  app.get("/:agentId/transactions/:txId", (c) => {
    const t = d.store.transaction(c.req.param("txId"));
    if (!t || t.agentId !== c.req.param("agentId"))
      return c.json(bad("Transaction not found"), 404);
    return c.json({ ok: true, data: t });
  });

  app.post("/:agentId/sign", async (c) => {
    const w = d.store.wallet(c.req.param("agentId"));
    if (!w) return c.json(bad("Agent not found"), 404);
    const b = (await c.req.json().catch(() => undefined)) as SignBody | undefined;
    if (!b || typeof b !== "object") return c.json(bad("Invalid JSON in request body"), 400);
    if (typeof b.to !== "string" || !b.to) return c.json(bad("'to' address is required"), 400);
    if (!ADDRESS.test(b.to))
      return c.json(bad("'to' must be a valid Ethereum address (0x + 40 hex chars)"), 400);
    if (b.value === undefined || b.value === null)
      return c.json(bad("'value' is required (wei amount as string)"), 400);
    if (typeof b.value !== "string" || !UINT.test(b.value))
      return c.json(bad("'value' must be a uint256 wei string"), 400);
    if (
      b.data !== undefined &&
      !(typeof b.data === "string" && /^0x([0-9a-fA-F]{2})*$/.test(b.data))
    ) {
      return c.json(bad("'data' must be 0x-prefixed hex"), 400);
    }
    if (b.chainId !== undefined && b.chainId !== d.chainId)
      return c.json(bad(`Unsupported chainId (this signer serves ${d.chainId})`), 400);
    if (b.gasLimit !== undefined && !(typeof b.gasLimit === "string" && UINT.test(b.gasLimit))) {
      return c.json(bad("'gasLimit' must be a decimal string"), 400);
    }
    if (b.broadcast === false)
      return c.json(
        bad("This signer only signs and broadcasts (broadcast: false is not served)"),
        400,
      );
    const idem = c.req.header("idempotency-key");
    if (!idem) return c.json(bad("Broadcast signing requires an Idempotency-Key header"), 428);
    const to = b.to as Hex;
    const data = b.data as Hex | undefined;
    const value = BigInt(b.value);
    const key = `${w.walletId}:${idem}`;
    return d.lock(`wallet:${w.walletId}`, async () => {
      const known = d.store.tx(key);
      if (known && "failed" in known) {
        // Steward keeps the failed execution under its key: inspect it, never a second try.
        const data = { txId: known.txId, status: "failed" };
        return c.json({ ok: false, error: CHAIN_REFUSAL_REPEAT, data }, 409);
      }
      if (known && d.store.transaction(known.txId ?? "")?.status === "outcome_unknown") {
        // As Steward: the same answer again, no second broadcast; the hash is to reconcile.
        return c.json(outcomeUnknown(known.txId as string, known.hash), 202);
      }
      if (known) {
        // Signed once: re-broadcast (a no-op if it is already in the pool or mined).
        await d.client.sendRawTransaction({ serializedTransaction: known.raw }).catch(() => {});
        return c.json({ ok: true, data: { txId: known.txId ?? key, txHash: known.hash } });
      }
      const { results, refused, held } = evaluateRules(d.store.rules(w.walletId), {
        kind: "transaction",
        to,
        value,
      });
      const txId = randomUUID();
      const record = (status: TxRecord["status"], txHash?: Hex): TxRecord => ({
        id: txId,
        agentId: w.walletId,
        status,
        txHash: txHash ?? null,
        policyResults: results,
      });
      if (refused) return refuse(d, c, w.walletId, txId, results, record("rejected"));
      if (held) {
        const ev = d.emit(w.walletId, "tx.pending", { txId, results });
        d.store.record(w.walletId, { transaction: record("pending"), webhooks: ev.outgoing });
        ev.deliver();
        const data = { txId, results, status: "pending_approval" };
        return c.json({ ok: false, error: "Transaction requires manual approval", data }, 202);
      }
      return signAndSend(d, c, {
        w,
        to,
        value,
        data,
        gasLimit: b.gasLimit as string | undefined,
        key,
        txId,
        record,
      });
    });
  });

  app.post("/:agentId/sign-typed-data", typedDataRoute(d));

  app.post("/:agentId/sign-message", async (c) => {
    const w = d.store.wallet(c.req.param("agentId"));
    if (!w) return c.json(bad("Agent not found"), 404);
    const body = (await c.req.json().catch(() => undefined)) as { message?: unknown } | undefined;
    if (!body) return c.json(bad("Invalid JSON in request body"), 400);
    if (typeof body.message !== "string" || !body.message.trim())
      return c.json(bad("'message' is required"), 400);
    const signature = await privateKeyToAccount(d.store.unseal(w)).signMessage({
      message: body.message,
    });
    return c.json({ ok: true, data: { signature } });
  });
  return app;
}

async function signAndSend(
  d: VaultDeps,
  // biome-ignore lint/suspicious/noExplicitAny: Hono's context of the route above
  c: any,
  s: {
    w: NonNullable<ReturnType<StewardStore["wallet"]>>;
    to: Hex;
    value: bigint;
    data?: Hex;
    gasLimit?: string;
    key: string;
    txId: string;
    record: (status: TxRecord["status"], txHash?: Hex) => TxRecord;
  },
) {
  const account = privateKeyToAccount(d.store.unseal(s.w));
  const [nonce, gasPrice] = await Promise.all([
    d.client.getTransactionCount({ address: account.address, blockTag: "pending" }),
    d.client.getGasPrice(),
  ]);
  let gas: bigint;
  try {
    gas = s.gasLimit ? BigInt(s.gasLimit) : await estimate(d, account.address, s, gasPrice);
  } catch (error) {
    const message = (error as Error).message;
    if (/insufficient funds|insufficient balance|exceeds the balance/i.test(message)) {
      // Steward's answer: the transaction recorded failed, 502 with its class, not the node's text.
      d.store.record(s.w.walletId, {
        tx: [s.key, { failed: true, txId: s.txId }],
        transaction: s.record("failed"),
      });
      return c.json({ ok: false, error: CHAIN_REFUSALS.insufficient_funds }, 502);
    }
    // Other RPC failures: 502 with the node's first line (docs/upstreams.md: Steward classifies).
    return c.json({ ok: false, error: message.split("\n")[0] }, 502);
  }
  const raw = await account.signTransaction({
    type: "legacy",
    chainId: d.chainId,
    nonce,
    to: s.to,
    value: s.value,
    data: s.data,
    gas,
    gasPrice,
  });
  const hash = keccak256(raw);
  const signed = d.emit(s.w.walletId, "tx.signed", { txId: s.txId, txHash: hash });
  // One write before broadcasting: a crash now re-broadcasts, never re-signs, and the event
  // is kept with the signature.
  d.store.record(s.w.walletId, {
    tx: [s.key, { hash, raw, txId: s.txId }],
    transaction: s.record("signed", hash),
    webhooks: signed.outgoing,
  });
  signed.deliver();
  try {
    await d.client.sendRawTransaction({ serializedTransaction: raw });
  } catch {
    // Steward broadcasts once and reconciles by hash; a signed transaction the chain does not
    // have is 202 outcome_unknown (never a 500 a caller would retry into a second signature).
    const seen = await d.client.getTransaction({ hash }).catch(() => undefined);
    if (!seen) {
      d.store.record(s.w.walletId, { transaction: s.record("outcome_unknown", hash) });
      return c.json(outcomeUnknown(s.txId, hash), 202);
    }
  }
  const sent = d.emit(s.w.walletId, "transaction.broadcasted", {
    txId: s.txId,
    txHash: hash,
    chainId: d.chainId,
    status: "broadcast",
    to: s.to,
    value: s.value.toString(),
  });
  d.store.record(s.w.walletId, {
    transaction: s.record("broadcast", hash),
    webhooks: sent.outgoing,
  });
  sent.deliver();
  return c.json({ ok: true, data: { txId: s.txId, txHash: hash } });
}

/**
 * The gas as Steward's viem `prepareTransactionRequest` gets it: estimated with the fee, which
 * a BSC node refuses for a sender that cannot pay gas and value ("insufficient funds"). Anvil
 * estimates without that check, so it is made here, in the node's words.
 */
async function estimate(
  d: VaultDeps,
  from: Hex,
  s: { to: Hex; value: bigint; data?: Hex },
  gasPrice: bigint,
): Promise<bigint> {
  const [estimated, balance] = await Promise.all([
    d.client.estimateGas({ account: from, to: s.to, value: s.value, data: s.data, gasPrice }),
    // Pending, as the node's pool judges it: funds sent to the wallet in this block count.
    d.client.getBalance({ address: from, blockTag: "pending" }),
  ]);
  if (balance < s.value + estimated * gasPrice)
    throw new Error("insufficient funds for gas * price + value");
  return (estimated * 12n) / 10n;
}

/** Steward's 202 for a signed transaction whose broadcast it cannot confirm. */
function outcomeUnknown(txId: string, txHash: Hex) {
  const data = {
    code: "external_broadcast_outcome_unknown",
    txId,
    txHash,
    reconciliationRequired: true,
  };
  return { ok: false as const, error: OUTCOME_UNKNOWN_ERROR, data };
}
