import {
  type Address,
  type Hex,
  HttpRequestError,
  keccak256,
  type LocalAccount,
  type PublicClient,
  TimeoutError,
  type TransactionReceipt,
} from "viem";
import type { Sql } from "../../lib/db/client.ts";
import { LOCK_NAMESPACES } from "../limits.ts";

/** A relayer transaction as stored before it is broadcast. */
export type StoredTx = { hash: Hex; raw: Hex; nonce: number };

export type SignAndStoreParameters = {
  sql: Sql;
  client: PublicClient;
  relayer: LocalAccount;
  chainId: number;
  to: Address;
  data: Hex;
  /** Persists the signed transaction (committed before the broadcast). */
  save: (tx: StoredTx) => Promise<void>;
};

/**
 * Simulates, signs, stores, then broadcasts one relayer transaction. The nonce is taken and
 * the transaction broadcast under a Postgres advisory lock on the relayer's address, so two
 * API processes never sign the same nonce. A revert in the simulation throws before anything
 * is stored.
 *
 * @example
 * const tx = await signAndStore({ sql, client, relayer, chainId: 56, to, data, save });
 */
export async function signAndStore(p: SignAndStoreParameters): Promise<StoredTx> {
  const { client, relayer } = p;
  const gas = await client.estimateGas({ account: relayer, to: p.to, data: p.data });
  return p.sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${LOCK_NAMESPACES.relayerNonce}, hashtext(${relayer.address.toLowerCase()}))`;
    const [nonce, gasPrice] = await Promise.all([
      client.getTransactionCount({ address: relayer.address, blockTag: "pending" }),
      client.getGasPrice(),
    ]);
    const raw = await relayer.signTransaction({
      type: "legacy",
      chainId: p.chainId,
      nonce,
      to: p.to,
      data: p.data,
      gas: (gas * 12n) / 10n,
      gasPrice,
    });
    const stored: StoredTx = { hash: keccak256(raw), raw, nonce };
    // Saved on another connection: durable before the broadcast, while the lock is held.
    await p.save(stored);
    try {
      await client.sendRawTransaction({ serializedTransaction: raw });
    } catch (error) {
      // No answer: the node may have it; the caller re-sends and waits. An answer that
      // refuses it (nonce taken, no funds): it will never be mined.
      if (!(error instanceof HttpRequestError || error instanceof TimeoutError)) throw error;
    }
    return stored;
  });
}

export type BroadcastOutcome =
  | { kind: "mined"; receipt: TransactionReceipt }
  | { kind: "pending" }
  | { kind: "dropped" };

/**
 * Re-sends a stored transaction (harmless if known) and waits for its receipt. `dropped`: the
 * nonce was used by another transaction, so this one can never be mined.
 *
 * @example
 * const outcome = await broadcastStored(client, relayer.address, stored, 60_000);
 */
export async function broadcastStored(
  client: PublicClient,
  relayer: Address,
  stored: StoredTx,
  timeoutMs: number,
): Promise<BroadcastOutcome> {
  await client.sendRawTransaction({ serializedTransaction: stored.raw }).catch(() => {});
  const receipt = await client
    .waitForTransactionReceipt({ hash: stored.hash, timeout: timeoutMs })
    .catch(() => undefined);
  if (receipt) return { kind: "mined", receipt };
  const used = await client
    .getTransactionCount({ address: relayer, blockTag: "latest" })
    .catch(() => undefined);
  if (used !== undefined && used > stored.nonce) {
    // One more look: it may have been mined between the two calls.
    const late = await client.getTransactionReceipt({ hash: stored.hash }).catch(() => undefined);
    return late ? { kind: "mined", receipt: late } : { kind: "dropped" };
  }
  return { kind: "pending" };
}
