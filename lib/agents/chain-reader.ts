import { createPublicClient, http } from "viem";
import { CHAIN_READ_LIMITS } from "../limits.ts";

/** What the dashboard reads from the chain itself: what no log carries (native balances). */
export type ChainReader = {
  /** Native BNB (wei) of `address` at `block`; throws when the node cannot serve that block. */
  getBalance: (address: `0x${string}`, block: bigint) => Promise<bigint>;
  /** The last block whose timestamp is at or before `time` (unix s), at or below `head`. */
  blockAt: (time: number, head: bigint) => Promise<{ number: bigint; time: number }>;
};

/**
 * A chain reader over JSON-RPC, with a timeout and one retry per call.
 *
 * @example
 * const chain = createChainReader("http://127.0.0.1:8545");
 * const wei = await chain.getBalance(treasury, 1200n);
 */
export function createChainReader(rpcUrl: string): ChainReader {
  const client = createPublicClient({
    transport: http(rpcUrl, {
      timeout: CHAIN_READ_LIMITS.timeoutMs,
      retryCount: CHAIN_READ_LIMITS.retries,
    }),
  });
  const timeOf = async (n: bigint) =>
    Number((await client.getBlock({ blockNumber: n, includeTransactions: false })).timestamp);
  return {
    getBalance: (address, block) => client.getBalance({ address, blockNumber: block }),
    blockAt: async (time, head) => {
      // Binary search on block timestamps: ~log2(head) reads.
      let lo = 0n;
      let hi = head;
      if ((await timeOf(hi)) <= time) return { number: hi, time: await timeOf(hi) };
      while (lo < hi) {
        const mid = (lo + hi + 1n) / 2n;
        if ((await timeOf(mid)) <= time) lo = mid;
        else hi = mid - 1n;
      }
      return { number: lo, time: await timeOf(lo) };
    },
  };
}
