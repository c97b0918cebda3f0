import { keccak256 } from "viem";
import {
  broadcast,
  type Relayer,
  type RelayerCall,
  type StoredTx,
  withRelayerNonce,
} from "./nonce.ts";

/**
 * The gas limit the relayer signs a call with: its estimate and 20 % headroom, so a state that
 * moved a little between estimate and block does not run it out of gas.
 *
 * @example
 * gasLimitFor(1_600_000n); // 1_920_000n
 */
export function gasLimitFor(estimate: bigint): bigint {
  return (estimate * 12n) / 10n;
}

/** Callers' calls waiting for the relayer's nonce. */
type Batch = {
  calls: RelayerCall[];
  gases: bigint[];
  save: (txs: StoredTx[]) => Promise<void>;
  resolve: (txs: StoredTx[]) => void;
  reject: (error: unknown) => void;
};
const waiting = new Map<string, Batch[]>();
const draining = new Set<string>();

/**
 * Signs `calls` with consecutive relayer nonces, stores them (`save`, committed on its own
 * connection) and only then broadcasts them in nonce order, without waiting for any receipt:
 * independent transactions go into the same block, and a crash after `save` re-broadcasts the
 * same bytes (`rebroadcastRelayerTxs`) instead of signing anew. Callers that ask while the lock
 * is held are served together in the next hold (one nonce read, one lock for all). A call that
 * would revert throws from the gas estimate, before anything is stored.
 *
 * @example
 * const [fund, safe] = await sendRelayerTxs(ctx, [fundCall, safeCall], saveBoth);
 */
export async function sendRelayerTxs(
  r: Relayer,
  calls: RelayerCall[],
  save: (txs: StoredTx[]) => Promise<void>,
): Promise<StoredTx[]> {
  if (calls.length === 0) return [];
  const { client, relayer } = r;
  // Estimated before taking the lock: the gas does not depend on the nonce.
  const gases = await Promise.all(
    calls.map(
      (c) =>
        c.gas ??
        client.estimateGas({ account: relayer.address, to: c.to, data: c.data, value: c.value }),
    ),
  );
  const address = relayer.address.toLowerCase();
  const done = new Promise<StoredTx[]>((resolve, reject) => {
    const queue = waiting.get(address) ?? [];
    queue.push({ calls, gases, save, resolve, reject });
    waiting.set(address, queue);
  });
  if (!draining.has(address)) void drain(r, address);
  return done;
}

/** Serves waiting batches, all of them per lock hold, until none waits. */
async function drain(r: Relayer, address: string): Promise<void> {
  draining.add(address);
  try {
    for (let batches = waiting.get(address); batches?.length; batches = waiting.get(address)) {
      waiting.delete(address);
      await withRelayerNonce(r, () => signStoreSend(r, batches as Batch[])).catch(
        (error: unknown) => {
          for (const b of batches as Batch[]) b.reject(error);
        },
      );
    }
  } finally {
    draining.delete(address);
  }
}

/**
 * Under the nonce lock, batch after batch: signed from the next nonce, stored, broadcast. A
 * batch whose save fails is refused and leaves its nonces to the next one; after a broadcast
 * the node refuses, nothing more is signed (a later nonce would sit behind the gap) and the
 * batches still waiting are refused: their callers fail and a retry starts afresh.
 */
async function signStoreSend(r: Relayer, batches: Batch[]): Promise<void> {
  const { client, relayer } = r;
  const [next, gasPrice] = await Promise.all([
    client.getTransactionCount({ address: relayer.address, blockTag: "pending" }),
    client.getGasPrice(),
  ]);
  let nonce = next;
  for (const [k, batch] of batches.entries()) {
    const txs: StoredTx[] = [];
    try {
      for (const [i, c] of batch.calls.entries()) {
        const raw = await relayer.signTransaction({
          type: "legacy",
          chainId: r.chain.id,
          nonce: nonce + i,
          to: c.to,
          data: c.data,
          value: c.value,
          gas: gasLimitFor(batch.gases[i] as bigint),
          gasPrice,
        });
        txs.push({ hash: keccak256(raw), raw, nonce: nonce + i });
      }
      await batch.save(txs);
    } catch (error) {
      batch.reject(error);
      continue;
    }
    nonce += txs.length;
    try {
      for (const t of txs) await broadcast(r, t);
    } catch (error) {
      r.log.error({ err: error, nonce: txs[0]?.nonce }, "relayer broadcast refused");
      for (const b of batches.slice(k)) b.reject(error);
      return;
    }
    batch.resolve(txs);
  }
}
