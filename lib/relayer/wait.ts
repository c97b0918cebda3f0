import { setTimeout as sleep } from "node:timers/promises";
import type { Hex, TransactionReceipt } from "viem";
import type { Relayer, StoredTx } from "./nonce.ts";

export type RelayerOutcome =
  | { kind: "mined"; receipt: TransactionReceipt }
  | { kind: "pending" }
  | { kind: "dropped" };

export type WaitRelayerTxParameters = { timeoutMs: number; pollMs: number };

/**
 * Waits until a stored relayer transaction is mined, or until its nonce was used by another
 * transaction (`dropped`: it can never be mined; the caller re-checks the chain and signs
 * anew), or `timeoutMs` passed (`pending`).
 */
export async function waitRelayerTx(
  r: Pick<Relayer, "client" | "relayer">,
  stored: StoredTx,
  p: WaitRelayerTxParameters,
): Promise<RelayerOutcome> {
  const { client, relayer } = r;
  const deadline = Date.now() + p.timeoutMs;
  const receipt = () => client.getTransactionReceipt({ hash: stored.hash }).catch(() => undefined);
  for (;;) {
    const mined = await receipt();
    if (mined) return { kind: "mined", receipt: mined };
    const used = await client
      .getTransactionCount({ address: relayer.address, blockTag: "latest" })
      .catch(() => undefined);
    if (used !== undefined && used > stored.nonce) {
      // One more look: it may have been mined between the two calls.
      const late = await receipt();
      return late ? { kind: "mined", receipt: late } : { kind: "dropped" };
    }
    if (Date.now() > deadline) return { kind: "pending" };
    await sleep(p.pollMs);
  }
}

/** Whether the node knows a transaction (pending or mined). */
export async function nodeKnows(r: Pick<Relayer, "client">, hash: Hex): Promise<boolean> {
  const tx = await r.client.getTransaction({ hash }).catch(() => undefined);
  return tx !== undefined;
}
