// The relayer's nonce, shared by its two signers: the worker's launch saga and the API's
// deposit launches. Both take the same advisory lock, so no two processes sign one nonce.
import {
  type Address,
  type Hex,
  HttpRequestError,
  type LocalAccount,
  type PublicClient,
  TimeoutError,
} from "viem";
import type { Sql } from "../db/client.ts";
import { RELAYER_NONCE_LOCK } from "../limits.ts";
import type { Logger } from "../logger.ts";
import { keyedMutex } from "../mutex.ts";

/** What signing for the relayer needs (a saga's context carries all of it). */
export type Relayer = {
  sql: Sql;
  log: Logger;
  client: PublicClient;
  relayer: LocalAccount;
  chain: { id: number };
};

/** A relayer transaction as stored before it is broadcast. */
export type StoredTx = { hash: Hex; raw: Hex; nonce: number };

/** One call the relayer makes. */
export type RelayerCall = {
  to: Address;
  data?: Hex;
  value?: bigint;
  /** The call's gas estimate when the caller made it already (to price it before sending). */
  gas?: bigint;
};

// One waiter per process on the advisory lock: the others queue here, not on DB connections.
const local = keyedMutex();

/**
 * Runs `fn` holding the relayer's nonce: the Postgres advisory lock every relayer signer takes,
 * so a nonce read from the node's pending count inside it is one no other process is signing.
 * `fn` must broadcast before it returns.
 */
export async function withRelayerNonce<T>(r: Relayer, fn: () => Promise<T>): Promise<T> {
  const address = r.relayer.address.toLowerCase();
  return local(address, async () => {
    let out: T | undefined;
    await r.sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${RELAYER_NONCE_LOCK}, hashtext(${address}))`;
      out = await fn();
    });
    return out as T;
  });
}

/**
 * Broadcasts a signed transaction. An answer that refuses it (nonce taken, no funds) throws:
 * it will never be mined. No answer (timeout, connection) may mean it arrived: logged with its
 * cause, and the caller waits for it or re-sends the same bytes.
 */
export async function broadcast(r: Relayer, tx: StoredTx): Promise<void> {
  try {
    await r.client.sendRawTransaction({ serializedTransaction: tx.raw });
  } catch (error) {
    if (!(error instanceof HttpRequestError || error instanceof TimeoutError)) throw error;
    r.log.warn({ err: error, hash: tx.hash, nonce: tx.nonce }, "relayer broadcast unanswered");
  }
}

/**
 * Re-sends stored transactions (a resumed saga, a retried request) in nonce order, under the
 * nonce lock so one that never reached the node cannot race a new signature for its nonce. A
 * refusal is expected (a mined or replaced transaction is refused) and is logged, not thrown:
 * waiting for the receipt tells which it was.
 *
 * @example
 * await rebroadcastRelayerTxs(ctx, [saga.fund_tx, saga.safe_tx]);
 */
export async function rebroadcastRelayerTxs(
  r: Relayer,
  stored: (StoredTx | null)[],
): Promise<void> {
  const txs = stored.filter((t): t is StoredTx => t !== null).sort((a, b) => a.nonce - b.nonce);
  if (txs.length === 0) return;
  await withRelayerNonce(r, async () => {
    for (const t of txs) {
      await r.client.sendRawTransaction({ serializedTransaction: t.raw }).catch((error) => {
        r.log.info({ err: error, hash: t.hash, nonce: t.nonce }, "relayer re-broadcast refused");
      });
    }
  });
}
