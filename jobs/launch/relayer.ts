import { setTimeout as sleep } from "node:timers/promises";
import {
  type Address,
  type Hex,
  HttpRequestError,
  keccak256,
  TimeoutError,
  type TransactionReceipt,
} from "viem";
import { RELAYER_NONCE_LOCK } from "../../lib/limits.ts";
import { keyedMutex } from "../../lib/mutex.ts";
import { LAUNCH_LIMITS } from "../limits.ts";
import type { SagaContext } from "./context.ts";
import type { StoredTx } from "./row.ts";

/** One call the relayer makes. */
export type RelayerCall = {
  to: Address;
  data?: Hex;
  value?: bigint;
  /** Pays this much more than the node's gas price, so it is ordered before cheaper ones. */
  gasPriceBumpPercent?: number;
};

// One waiter per process on the advisory lock: the others queue here, not on DB connections.
const local = keyedMutex();

/**
 * Runs `fn` holding the relayer's nonce: the Postgres advisory lock every relayer signer takes
 * (the API's deposit launches too), so a nonce read from the node's pending count inside it is
 * one no other process is signing. `fn` must broadcast before it returns.
 */
async function withRelayerNonce<T>(ctx: SagaContext, fn: () => Promise<T>): Promise<T> {
  const address = ctx.relayer.address.toLowerCase();
  return local(address, async () => {
    let out: T | undefined;
    await ctx.sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${RELAYER_NONCE_LOCK}, hashtext(${address}))`;
      out = await fn();
    });
    return out as T;
  });
}

/** Broadcasts; an answer that refuses the transaction throws, no answer may mean it arrived. */
async function broadcast(ctx: SagaContext, raw: Hex): Promise<void> {
  try {
    await ctx.client.sendRawTransaction({ serializedTransaction: raw });
  } catch (error) {
    if (!(error instanceof HttpRequestError || error instanceof TimeoutError)) throw error;
  }
}

/** A saga's calls waiting for the relayer's nonce. */
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
 * same bytes (see `rebroadcastRelayerTxs`) instead of signing anew. Sagas that ask while the
 * lock is held are served together in the next hold (one nonce read, one lock for all).
 *
 * @example
 * const [fund, safe] = await sendRelayerTxs(ctx, [fundCall, safeCall], saveBoth);
 */
export async function sendRelayerTxs(
  ctx: SagaContext,
  calls: RelayerCall[],
  save: (txs: StoredTx[]) => Promise<void>,
): Promise<StoredTx[]> {
  if (calls.length === 0) return [];
  const { client, relayer } = ctx;
  // Estimated before taking the lock: the gas does not depend on the nonce.
  const gases = await Promise.all(
    calls.map((c) =>
      client.estimateGas({ account: relayer.address, to: c.to, data: c.data, value: c.value }),
    ),
  );
  const address = relayer.address.toLowerCase();
  const done = new Promise<StoredTx[]>((resolve, reject) => {
    const queue = waiting.get(address) ?? [];
    queue.push({ calls, gases, save, resolve, reject });
    waiting.set(address, queue);
  });
  if (!draining.has(address)) void drain(ctx, address);
  return done;
}

/** Serves waiting batches, all of them per lock hold, until none waits. */
async function drain(ctx: SagaContext, address: string): Promise<void> {
  draining.add(address);
  try {
    for (let batches = waiting.get(address); batches?.length; batches = waiting.get(address)) {
      waiting.delete(address);
      await withRelayerNonce(ctx, () => signStoreSend(ctx, batches as Batch[])).catch(
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
 * batches still waiting are refused: their sagas fail and a retry starts afresh.
 */
async function signStoreSend(ctx: SagaContext, batches: Batch[]): Promise<void> {
  const { client, relayer } = ctx;
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
          chainId: ctx.chain.id,
          nonce: nonce + i,
          to: c.to,
          data: c.data,
          value: c.value,
          gas: ((batch.gases[i] as bigint) * 12n) / 10n,
          gasPrice: (gasPrice * BigInt(100 + (c.gasPriceBumpPercent ?? 0))) / 100n,
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
      for (const t of txs) await broadcast(ctx, t.raw);
    } catch (error) {
      for (const b of batches.slice(k)) b.reject(error);
      return;
    }
    batch.resolve(txs);
  }
}

/**
 * Re-broadcasts stored transactions (a resumed saga), under the nonce lock so a stored one that
 * never reached the node cannot race a new signature for its nonce. Refusals are ignored: a
 * mined or replaced transaction is refused, and `settleRelayerTx` tells which.
 *
 * @example
 * await rebroadcastRelayerTxs(ctx, [saga.fund_tx, saga.safe_tx]);
 */
export async function rebroadcastRelayerTxs(
  ctx: SagaContext,
  stored: (StoredTx | null)[],
): Promise<void> {
  const txs = stored.filter((t): t is StoredTx => t !== null).sort((a, b) => a.nonce - b.nonce);
  if (txs.length === 0) return;
  await withRelayerNonce(ctx, async () => {
    for (const t of txs)
      await ctx.client.sendRawTransaction({ serializedTransaction: t.raw }).catch(() => {});
  });
}

/** Whether the node knows a transaction (pending or mined). */
export async function nodeKnows(ctx: SagaContext, hash: Hex): Promise<boolean> {
  const tx = await ctx.client.getTransaction({ hash }).catch(() => undefined);
  return tx !== undefined;
}

export type RelayerOutcome = { kind: "mined"; receipt: TransactionReceipt } | { kind: "dropped" };

/**
 * Waits until a stored relayer transaction is mined, or until its nonce was used by another
 * transaction (`dropped`: it can never be mined; the caller re-checks the chain and signs
 * anew). Throws when neither happens within the receipt timeout.
 *
 * @example
 * const outcome = await waitRelayerTx(ctx, saga.fund_tx);
 */
export async function waitRelayerTx(ctx: SagaContext, stored: StoredTx): Promise<RelayerOutcome> {
  const { client, relayer } = ctx;
  const deadline = Date.now() + LAUNCH_LIMITS.receiptTimeoutMs;
  const receipt = () => client.getTransactionReceipt({ hash: stored.hash }).catch(() => undefined);
  for (;;) {
    const r = await receipt();
    if (r) return { kind: "mined", receipt: r };
    const used = await client
      .getTransactionCount({ address: relayer.address, blockTag: "latest" })
      .catch(() => undefined);
    if (used !== undefined && used > stored.nonce) {
      // One more look: it may have been mined between the two calls.
      const late = await receipt();
      return late ? { kind: "mined", receipt: late } : { kind: "dropped" };
    }
    if (Date.now() > deadline)
      throw new Error(`relayer transaction ${stored.hash} is still pending`);
    await sleep(LAUNCH_LIMITS.receiptPollMs);
  }
}

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
 * still needed. Returns the receipt, or null when the chain showed the work done.
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
      const outcome = await waitRelayerTx(p.ctx, stored);
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
