// The handlers' own client for the node (registers no handler).
//
// `context.client` goes through Ponder's RPC queue, which its historical sync fills with
// `eth_getBlockByNumber` calls of whole blocks, and through its RPC cache (a select and an insert
// in ponder_sync per call). On the 100,000-trade bench a handler's read waited 1-2 s there: the
// 200 registrations of one block alone took 270 s. Reads that must describe a block are pinned
// to it (`blockNumber`), so they answer the same as Ponder's client would.
import { BaseError, ContractFunctionRevertedError, createPublicClient, fallback, http } from "viem";
import { RPC_LIMITS } from "./limits.ts";
import { settings } from "./settings.ts";

/** viem client on the configured RPC URLs, with a timeout and transport retries. */
export const chainClient = createPublicClient({
  transport: fallback(
    settings.rpcUrls.map((url) =>
      http(url, { timeout: RPC_LIMITS.timeoutMs, retryCount: RPC_LIMITS.transportRetries }),
    ),
  ),
});

/**
 * `read` resolved, or undefined if the contract reverted. Any other failure (timeout, node
 * down) is thrown: the handler fails and Ponder resumes later, rather than indexing a guess.
 *
 * @example
 * const owner = await unlessReverted(chainClient.readContract({ ...call, blockNumber }));
 */
export async function unlessReverted<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    const reverted =
      error instanceof BaseError &&
      error.walk((e) => e instanceof ContractFunctionRevertedError) !== null;
    if (reverted) return undefined;
    throw error;
  }
}
