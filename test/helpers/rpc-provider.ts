import { hexToNumber, numberToHex } from "viem";

/**
 * How a hosted BSC provider limits `eth_getLogs` and request rates, in its own error forms, for
 * the RPC proxy (test/helpers/rpc-proxy.ts). The limits are the issue's provider profile: a
 * 2,000-block range, 10,000 logs an answer, 25 requests a second, 50 ms a round trip. The error
 * texts are the providers' own (the forms Ponder's @ponder/utils `getLogsRetryHelper` parses,
 * each attributed there to its provider).
 */
export type ProviderProfile = {
  name: string;
  maxBlockRange: number;
  maxLogs: number;
  requestsPerSecond: number;
  latencyMs: number;
  /** The JSON-RPC error of an eth_getLogs over either cap; `fits` is a range that would pass. */
  logsError: (fits: [number, number]) => { code: number; message: string };
  /** The HTTP 429 answer's JSON-RPC error. */
  rateLimitError: { code: number; message: string };
};

const range = ([a, b]: [number, number]) => `[${numberToHex(a)}, ${numberToHex(b)}]`;

const LIMITS = { maxBlockRange: 2_000, maxLogs: 10_000, requestsPerSecond: 25, latencyMs: 50 };

export const PROVIDER_PROFILES: Record<string, ProviderProfile> = {
  // Alchemy: "up to a 2K block range and no limit on the response size, or any block range with
  // a cap of 10K logs"; here both caps hold at once (stricter), with Alchemy's own answer.
  alchemy: {
    name: "alchemy",
    ...LIMITS,
    logsError: (fits) => ({
      code: -32602,
      message: `Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the response. Based on your parameters, this block range should work: ${range(fits)}`,
    }),
    rateLimitError: {
      code: 429,
      message:
        "Your app has exceeded its compute units per second capacity. If you have retries enabled, you can safely ignore this message. If not, check out https://docs.alchemy.com/reference/throughput",
    },
  },
  // Infura: -32005 for a query over its result cap, with the range to try instead, and -32005
  // "request rate limited" with HTTP 429.
  infura: {
    name: "infura",
    ...LIMITS,
    logsError: (fits) => ({
      code: -32005,
      message: `query returned more than ${LIMITS.maxLogs} results. Try with this block range ${range(fits)}.`,
    }),
    rateLimitError: { code: -32005, message: "project ID request rate exceeded" },
  },
};

type Filter = { fromBlock?: string; toBlock?: string; blockHash?: string };

/**
 * Judges an eth_getLogs against the profile's caps: undefined when it passes, else the error.
 * `logs` are the node's answer for the request (read first, as a provider counts them).
 */
export function judgeGetLogs(
  profile: ProviderProfile,
  params: unknown[],
  logs: { blockNumber: string }[],
  head: number,
): { code: number; message: string } | undefined {
  const f = (params[0] ?? {}) as Filter;
  if (f.blockHash) return logs.length > profile.maxLogs ? profile.logsError([0, 0]) : undefined;
  const from = blockOf(f.fromBlock, head);
  const to = blockOf(f.toBlock, head);
  if (to - from + 1 <= profile.maxBlockRange && logs.length <= profile.maxLogs) return undefined;
  // The widest range from `from` that holds both caps (at least one block).
  let end = Math.min(to, from + profile.maxBlockRange - 1);
  const perBlock = new Map<number, number>();
  for (const l of logs) {
    const b = hexToNumber(l.blockNumber as `0x${string}`);
    perBlock.set(b, (perBlock.get(b) ?? 0) + 1);
  }
  let n = 0;
  for (let b = from; b <= end; b++) {
    n += perBlock.get(b) ?? 0;
    if (n > profile.maxLogs) {
      end = Math.max(from, b - 1);
      break;
    }
  }
  return profile.logsError([from, end]);
}

function blockOf(tag: string | undefined, head: number): number {
  if (!tag || tag === "latest" || tag === "pending" || tag === "safe" || tag === "finalized")
    return head;
  if (tag === "earliest") return 0;
  return hexToNumber(tag as `0x${string}`);
}

/**
 * Whose call this is, by its shape: the handlers' own reads (src/receipts.ts reads a block's
 * logs by topic with no address; contract reads are eth_call, through Ponder's client or ours)
 * or Ponder's sync (its log filters name our contracts, its live blocks' logs are read by hash
 * alone; blocks, the head, the chain id).
 */
export function callerOf(method: string, params: unknown[]): "ponder" | "handlers" {
  if (method === "eth_call") return "handlers";
  if (method === "eth_getLogs") {
    const f = (params[0] ?? {}) as { address?: unknown; topics?: unknown };
    const byTopic = f.topics !== undefined && f.topics !== null;
    return byTopic && (f.address === undefined || f.address === null) ? "handlers" : "ponder";
  }
  return "ponder";
}
