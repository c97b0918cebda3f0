import type { Address, Hex, TransactionReceipt } from "viem";
import { keccak256 } from "viem";
import { keyedMutex } from "../../lib/mutex.ts";
import { LAUNCH_LIMITS } from "../limits.ts";
import type { SagaContext } from "./context.ts";

/** A relayer transaction as the saga stores it before broadcasting. */
export type StoredTx = { hash: Hex; raw: Hex; nonce: number };

const lock = keyedMutex();

export type SendRelayerTxParameters = {
  ctx: SagaContext;
  /** The transaction stored by an earlier run of this step, if any. */
  stored: StoredTx | null;
  /** Persists the signed transaction before it is broadcast. */
  save: (tx: StoredTx) => Promise<void>;
  to: Address;
  data?: Hex;
  value?: bigint;
};

/**
 * Sends a relayer transaction at most once per step: it is signed, stored, then broadcast,
 * so a crash after signing re-broadcasts the same bytes instead of signing anew. A stored
 * transaction whose nonce was used by another one (it was never broadcast) is signed again;
 * the caller has re-checked the chain state before calling.
 *
 * @example
 * const receipt = await sendRelayerTx({ ctx, stored: saga.fund_tx, save, to: wallet, value });
 */
export async function sendRelayerTx(p: SendRelayerTxParameters): Promise<TransactionReceipt> {
  const { client, relayer } = p.ctx;
  if (p.stored) {
    await client.sendRawTransaction({ serializedTransaction: p.stored.raw }).catch(() => {});
    const receipt = await client
      .waitForTransactionReceipt({
        hash: p.stored.hash,
        timeout: LAUNCH_LIMITS.receiptTimeoutMs / 4,
      })
      .catch(() => undefined);
    if (receipt) return checked(receipt);
    const used = await client.getTransactionCount({ address: relayer.address, blockTag: "latest" });
    if (used <= p.stored.nonce)
      throw new Error(`relayer transaction ${p.stored.hash} is still pending`);
  }
  const tx = await lock(relayer.address, async () => {
    const [nonce, gasPrice, gas] = await Promise.all([
      client.getTransactionCount({ address: relayer.address, blockTag: "pending" }),
      client.getGasPrice(),
      client.estimateGas({ account: relayer.address, to: p.to, data: p.data, value: p.value }),
    ]);
    const raw = await relayer.signTransaction({
      type: "legacy",
      chainId: p.ctx.chain.id,
      nonce,
      to: p.to,
      data: p.data,
      value: p.value,
      gas: (gas * 12n) / 10n,
      gasPrice,
    });
    const stored: StoredTx = { hash: keccak256(raw), raw, nonce };
    await p.save(stored);
    await client.sendRawTransaction({ serializedTransaction: raw });
    return stored;
  });
  return checked(
    await client.waitForTransactionReceipt({
      hash: tx.hash,
      timeout: LAUNCH_LIMITS.receiptTimeoutMs,
    }),
  );
}

function checked(r: TransactionReceipt): TransactionReceipt {
  if (r.status !== "success") throw new Error(`transaction ${r.transactionHash} reverted`);
  return r;
}
