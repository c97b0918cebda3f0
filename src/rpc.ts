// The handlers' own client for the node, for the block logs of src/receipts.ts (registers no
// handler). Contract reads go through `context.client`, whose RPC cache serves a reindex.
//
// `context.client` goes through Ponder's RPC queue, which its historical sync fills with
// `eth_getBlockByNumber` calls of whole blocks, and through its RPC cache (a select and an insert
// in ponder_sync per call). On the 100,000-trade bench a handler's read waited 1-2 s there: the
// 200 registrations of one block alone took 270 s.
import { createPublicClient, fallback, http } from "viem";
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
