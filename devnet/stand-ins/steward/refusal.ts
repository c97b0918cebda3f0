import type { PolicyResult, TxRecord } from "../../../services/steward/protocol.ts";
import type { Emit } from "./outbox.ts";
import type { StewardStore } from "./store.ts";

/** Steward's policy refusal: 403 `{txId, results}` and its `policy.violation` delivery. */
export function refuse(
  d: { emit: Emit; store: StewardStore },
  // biome-ignore lint/suspicious/noExplicitAny: Hono's context of the calling route
  c: any,
  walletId: string,
  txId: string,
  results: PolicyResult[],
  transaction?: TxRecord,
) {
  const ev = d.emit(walletId, "policy.violation", { txId, results });
  d.store.record(walletId, { transaction, webhooks: ev.outgoing });
  ev.deliver();
  return c.json(
    { ok: false, error: "Transaction rejected by policy", data: { txId, results } },
    403,
  );
}
