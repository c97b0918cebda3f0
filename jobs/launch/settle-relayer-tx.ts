import type { TransactionReceipt } from "viem";
import type { RelayerCall, StoredTx } from "../../lib/relayer/nonce.ts";
import { sendRelayerTxs } from "../../lib/relayer/send.ts";
import { waitRelayerTx } from "../../lib/relayer/wait.ts";
import { LAUNCH_LIMITS } from "../limits.ts";
import type { SagaContext } from "./context.ts";

export type SettleRelayerTxParameters = {
  ctx: SagaContext;
  stored: StoredTx | null;
  /** The call still needed, read from the chain now; null: the chain already shows it done. */
  needed: () => Promise<RelayerCall | null>;
  save: (tx: StoredTx) => Promise<void>;
};

/**
 * Brings one relayer transaction to a successful receipt: waits for the stored one; when it was
 * dropped (or none was stored) re-checks the chain and signs, stores and sends the call if it is
 * still needed. Returns the receipt, or null when the chain showed the work done. Throws when
 * the stored one is still pending after the receipt timeout.
 *
 * @example
 * await settleRelayerTx({ ctx, stored: saga.fund_tx, needed: fundCall, save });
 */
export async function settleRelayerTx(
  p: SettleRelayerTxParameters,
): Promise<TransactionReceipt | null> {
  let stored = p.stored;
  for (let signed = 0; ; signed++) {
    let reverted: TransactionReceipt | undefined;
    if (stored) {
      const outcome = await waitRelayerTx(p.ctx, stored, {
        timeoutMs: LAUNCH_LIMITS.receiptTimeoutMs,
        pollMs: LAUNCH_LIMITS.receiptPollMs,
      });
      if (outcome.kind === "pending") {
        throw new Error(`relayer transaction ${stored.hash} is still pending`);
      }
      if (outcome.kind === "mined" && outcome.receipt.status === "success") return outcome.receipt;
      // A reverted copy is re-checked like a dropped one: an earlier copy mined late (after an
      // RPC pause or a restart) may have done the work, and the stored one then reverts for
      // ever (a Safe already deployed at its CREATE2 address). Seen in the chaos run.
      if (outcome.kind === "mined") reverted = outcome.receipt;
    }
    const call = await p.needed();
    if (!call) return null;
    if (signed > LAUNCH_LIMITS.relayerResends) {
      if (reverted) checked(reverted);
      throw new Error(`relayer transaction to ${call.to} was dropped ${signed} times`);
    }
    [stored] = (await sendRelayerTxs(p.ctx, [call], ([t]) => p.save(t as StoredTx))) as [StoredTx];
  }
}

function checked(r: TransactionReceipt): TransactionReceipt {
  if (r.status !== "success") throw new Error(`transaction ${r.transactionHash} reverted`);
  return r;
}
