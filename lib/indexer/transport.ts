import {
  type EIP1193RequestFn,
  fallback,
  HttpRequestError,
  http,
  TimeoutError,
  type Transport,
} from "viem";
import { INDEXER_RPC_LIMITS } from "../limits.ts";

/**
 * The indexer's JSON-RPC transport: viem's HTTP transport (a fallback over several URLs), where
 * a request that times out fails as an ordinary retryable HTTP error instead of viem's
 * `TimeoutError`.
 *
 * Why: Ponder 0.17 (src/rpc/index.ts) treats a `TimeoutError` like an HTTP 429 — it takes the
 * provider out of rotation and cuts its requests-per-second budget by 5 % per timeout, down to
 * 3 req/s, and raises it again only after minutes of saturated success. A stalled RPC (anvil
 * writing its state, a paused process, a slow node) makes every in-flight request time out at
 * once, so after the stall the indexer crawls at 3 req/s and never catches up with a chain
 * that makes a block a second. A slow node is not a rate limit: as a plain `HttpRequestError`
 * (no status) Ponder retries it with its backoff and leaves the budget alone. A real 429 still
 * reaches Ponder as a 429.
 *
 * At most `concurrency` requests are in flight to the node; the others wait here, and a request's
 * timeout starts only when it is sent. Ponder's historical sync fetches up to 100 whole blocks at
 * once, and a node given them all answers each one late: past the timeout under load, and every
 * retry is more work for the node, which still computes the abandoned ones.
 *
 * @example
 * createConfig({ chains: { bsc: { id: 56, rpc: indexerTransport(["http://127.0.0.1:8545"]) } } });
 */
export function indexerTransport(
  urls: string[],
  {
    timeoutMs = INDEXER_RPC_LIMITS.timeoutMs,
    concurrency = INDEXER_RPC_LIMITS.concurrency,
  }: { timeoutMs?: number; concurrency?: number } = {},
): Transport {
  if (urls.length === 0) throw new Error("the indexer needs at least one RPC URL");
  const one = (url: string) => http(url, { timeout: timeoutMs, retryCount: 0 });
  const inner = urls.length === 1 ? one(urls[0] as string) : fallback(urls.map(one));
  const slot = limiter(concurrency);
  return (parameters) => {
    const transport = inner({ ...parameters, retryCount: 0, timeout: timeoutMs });
    const request = (async (args, options) => {
      const release = await slot();
      try {
        return await transport.request(args, options);
      } catch (error) {
        throw timeoutAsRetryable(error);
      } finally {
        release();
      }
    }) as EIP1193RequestFn;
    return { ...transport, request };
  };
}

/** A counting semaphore: `await slot()` waits for one of `size` places and returns its release. */
function limiter(size: number): () => Promise<() => void> {
  let free = size;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else free++;
  };
  return async () => {
    if (free > 0) free--;
    else await new Promise<void>((r) => waiting.push(r));
    return release;
  };
}

/** A viem `TimeoutError` (at any depth of `cause`) as a status-less `HttpRequestError`. */
export function timeoutAsRetryable(error: unknown): unknown {
  const timeout = findTimeout(error);
  if (!timeout) return error;
  return new HttpRequestError({
    url: timeout.url,
    details: "the RPC did not answer in time (timeout)",
    cause: timeout,
  });
}

function findTimeout(error: unknown): TimeoutError | undefined {
  // Also a timeout carried as the cause of another error (a wrapping transport).
  for (let e = error, depth = 0; e && depth < 4; depth++) {
    if (e instanceof TimeoutError) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
