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
};

export type MinedReceiptReturnType = TransactionReceipt;

/**
 * The receipt of a transaction sent to a devnet. Anvil's automine can leave a ready transaction
 * in its pool with no block to take it (foundry-rs/foundry#10122; a market test's setup waited
 * 180 s on one in CI), so one still pending after 20 s gets a block mined for it; a block set
 * with `setNextBlockTimestamp` keeps its time. A transaction the node does not hold at all is an
 * error that says so, never a wait without end.
 */
export async function minedReceipt(p: MinedReceiptParameters): Promise<MinedReceiptReturnType> {
  const wait = (timeout: number) =>
    p.client.waitForTransactionReceipt({
      hash: p.hash,
      pollingInterval: p.pollingInterval ?? 50,
      timeout,
    });
  try {
    return await wait(p.stuckAfterMs ?? 20_000);
  } catch (error) {
    if (!(error instanceof WaitForTransactionReceiptTimeoutError)) throw error;
    const tx = await p.client.getTransaction({ hash: p.hash }).catch(() => undefined);
    if (!tx) throw new Error(`transaction ${p.hash} is not in the node's pool`, { cause: error });
    await p.test.mine({ blocks: 1 });
    // A node starved of CPU (CI's two cores under a dozen processes) may take longer still.
    return wait(60_000);
  }
}
