import {
  type Hex,
  type PublicClient,
  type TransactionReceipt,
  WaitForTransactionReceiptTimeoutError,
} from "viem";

export type MinedReceiptParameters = {
  client: PublicClient;
  /** Mines a block on the devnet (a viem test client in anvil mode). */
  test: { mine: (args: { blocks: number }) => Promise<void> };
  hash: Hex;
  pollingInterval?: number;
  /** How long a transaction may wait for automine before a block is mined for it. */
  stuckAfterMs?: number;
  /**
   * How long a gap before the transaction's nonce may last before it is an error (60 s): a
   * caller that hands out nonces first and sends concurrently (the storyline) may still have
   * the missing one on its way, slow on a loaded machine.
   */
  nonceGapGraceMs?: number;
};

export type MinedReceiptReturnType = TransactionReceipt;

/** Blocks mined for a stuck transaction before it is given up, and the wait after each. */
const MINE_ROUNDS = 6;
const ROUND_WAIT_MS = 10_000;

/**
 * The receipt of a transaction sent to a devnet. Anvil's automine can leave a ready transaction
 * in its pool with no block to take it (foundry-rs/foundry#10122; a market test's setup waited
 * 180 s on one in CI), so one still pending after 20 s gets blocks mined for it, one at a time; a
 * block set with `setNextBlockTimestamp` keeps its time. A transaction no block can take is an
 * error that says why (not in the pool, its nonce used by another, waiting behind a missing
 * nonce, a fee under the base fee), never a wait without end.
 *
 * @example
 * const receipt = await minedReceipt({ client, test, hash: await wallet.sendTransaction(tx) });
 */
export async function minedReceipt(p: MinedReceiptParameters): Promise<MinedReceiptReturnType> {
  const wait = async (timeout: number) => {
    try {
      return await p.client.waitForTransactionReceipt({
        hash: p.hash,
        pollingInterval: p.pollingInterval ?? 50,
        timeout,
      });
    } catch (error) {
      if (error instanceof WaitForTransactionReceiptTimeoutError) return undefined;
      throw error;
    }
  };
  const first = await wait(p.stuckAfterMs ?? 20_000);
  if (first) return first;
  const gapUntil = Date.now() + (p.nonceGapGraceMs ?? 60_000);
  for (let round = 0; round < MINE_ROUNDS; round++) {
    const lastRound = round === MINE_ROUNDS - 1;
    const gap = await assertMineable(p.client, p.hash, !lastRound && Date.now() < gapUntil);
    // Behind a nonce still on its way: no block can take it yet, so wait instead of mining.
    if (!gap) await p.test.mine({ blocks: 1 });
    // A node starved of CPU (CI's two cores under a dozen processes) may take a while.
    const receipt = await wait(ROUND_WAIT_MS);
    if (receipt) return receipt;
  }
  throw new Error(`transaction ${p.hash} stayed in the pool through ${MINE_ROUNDS} mined blocks`);
}

/**
 * Throws, saying why, when no block can take the pending transaction `hash`; true when it waits
 * behind a missing nonce and `gapAllowed` (it may still come).
 */
async function assertMineable(
  client: PublicClient,
  hash: Hex,
  gapAllowed: boolean,
): Promise<boolean> {
  const tx = await client.getTransaction({ hash }).catch(() => undefined);
  if (!tx) throw new Error(`transaction ${hash} is not in the node's pool`);
  if (tx.blockNumber !== null) return false; // mined meanwhile: the next wait sees its receipt
  const [next, head] = await Promise.all([
    client.getTransactionCount({ address: tx.from, blockTag: "latest" }),
    client.getBlock(),
  ]);
  if (tx.nonce < next) {
    throw new Error(
      `transaction ${hash} can never be mined: nonce ${tx.nonce} of ${tx.from} is already used by another transaction`,
    );
  }
  if (tx.nonce > next) {
    if (gapAllowed) return true;
    throw new Error(
      `transaction ${hash} waits behind nonce ${next} of ${tx.from}, which no transaction in the pool fills (it has nonce ${tx.nonce})`,
    );
  }
  const fee = tx.maxFeePerGas ?? tx.gasPrice;
  if (fee !== undefined && head.baseFeePerGas != null && fee < head.baseFeePerGas) {
    throw new Error(
      `transaction ${hash} offers ${fee} wei of gas price, under the base fee of ${head.baseFeePerGas}`,
    );
  }
  return false;
}
