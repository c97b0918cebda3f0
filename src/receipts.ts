// A block's receipts for the trade extraction in trades.ts. Registers no handler.
//
// A node that is behind, or on another fork, can answer for another block or with nothing.
// Ponder 0.17.7 does not retry a handler that throws: it rewraps any error that is not its
// own as a non-retryable IndexingFunctionError and the process exits (see
// test/indexer/receipts.test.ts). So the read is retried here, a few times with backoff;
// if the node still disagrees, the error ends the Ponder process, the indexer role exits and
// the supervisor restarts it, and Ponder resumes from its last checkpoint: nothing is
// written from a wrong receipt and nothing is lost.
//
// Ponder 0.17.7's `event.transactionReceipt` carries no logs, so a transaction's logs are read
// from the RPC: one `eth_getLogs` by block hash per block, limited to the event kinds the handlers
// read (LOG_TOPICS), grouped by transaction, memoised for the blocks being indexed. It used to be
// `eth_getBlockReceipts`: the same logs plus every receipt's bloom and fields, and on anvil 18x
// slower (a block of 500 curve buys: 1,347 ms and 1.3 MB against 76 ms for all its logs,
// `npm run bench:indexer`). Per-transaction `eth_getTransactionReceipt` through Ponder's cache
// cost ~35 ms each (one select and one insert in ponder_sync per call). Keyed by block hash, a
// memoised result can never describe a block that was reorged away.
//
// The logs stay in their RPC form (hex strings): a block is indexed once (logs by transaction,
// Transfer logs by token) and only the logs a handler asks for are decoded.
//
// They are read with our own client, not `context.client`: Ponder's RPC queue is shared with its
// historical sync, and a handler's request waited there behind `eth_getBlockByNumber` calls of
// 500 transactions (seconds each on the bench), once per block. While blocks with trades come one
// after another (a backfill), the next blocks are read ahead by number and used only if their
// logs carry the hash Ponder delivers. Ponder's RPC cache keeps no `eth_getLogs`, so the logs a
// handler confirmed are kept by block hash in Postgres (src/log-cache.ts) and read from there
// first: a reindex reads no block's logs from the node, and reads ahead only from that cache.
import { setTimeout as sleep } from "node:timers/promises";
import { getAbiItem, type Hex, numberToHex, toEventSelector } from "viem";
import { safeL2Abi } from "../abis/SafeL2.ts";
import { tokenManager2Abi } from "../abis/TokenManager2.ts";
import { uniswapV2PairAbi } from "../abis/UniswapV2Pair.ts";
import { LaunchpadError } from "../lib/errors.ts";
import { RECEIPT_LIMITS } from "./limits.ts";
import { cachedLogs, keepLogs, type RawLog, topicsKey } from "./log-cache.ts";
import { chainClient } from "./rpc.ts";
import { settings } from "./settings.ts";

// The log type lives with the cache that stores logs, so the cache needs nothing from here.
export type { RawLog } from "./log-cache.ts";

type LogFilter = { blockHash: Hex } | { fromBlock: Hex; toBlock: Hex };
const request = chainClient.request as unknown as (args: {
  method: "eth_getLogs";
  params: [LogFilter & { topics: [Hex[]] }];
}) => Promise<RawLog[] | null>;

/** keccak256("Transfer(address,address,uint256)"). */
const TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
const TOKEN_CREATE = toEventSelector(
  getAbiItem({ abi: tokenManager2Abi, name: "TokenCreate" }) as never,
);

/**
 * Every event kind a handler reads from a transaction's logs: Transfer (market transfers),
 * TokenManager2's curve events (src/trades.ts), the pair's Swap and Sync, and the Safe's
 * events (src/Treasury.ts). A handler that needs another kind adds it here.
 */
export const LOG_TOPICS: Hex[] = [
  TRANSFER,
  TOKEN_CREATE,
  ...(["TokenPurchase", "TokenSale", "LiquidityAdded"] as const).map((name) =>
    toEventSelector(getAbiItem({ abi: tokenManager2Abi, name }) as never),
  ),
  ...(["Swap", "Sync"] as const).map((name) =>
    toEventSelector(getAbiItem({ abi: uniswapV2PairAbi, name }) as never),
  ),
  // The Safe events Treasury.ts handles, so their transaction is always among the logs read.
  ...(["SafeMultiSigTransaction", "ExecutionSuccess", "ExecutionFailure"] as const).map((name) =>
    toEventSelector(getAbiItem({ abi: safeL2Abi, name }) as never),
  ),
];

/** The block's logs of LOG_TOPICS (null: the node does not know the block). */
const readLogs = (filter: LogFilter) =>
  request({ method: "eth_getLogs", params: [{ ...filter, topics: [LOG_TOPICS] }] });
const TOPICS_KEY = topicsKey(LOG_TOPICS);

/** A block's logs and where they came from (null: nobody knows the block). */
type Read = { logs: RawLog[]; cached: boolean } | null;

/** From the log cache, else (when `node`) from the node. */
async function readCachedOrNode(
  where: { hash: Hex } | { number: bigint },
  node: boolean,
): Promise<Read> {
  const cached = await cachedLogs(where, TOPICS_KEY);
  if (cached) return { logs: cached, cached: true };
  if (!node) return null;
  const filter =
    "hash" in where
      ? { blockHash: where.hash }
      : { fromBlock: numberToHex(where.number), toBlock: numberToHex(where.number) };
  const logs = await readLogs(filter);
  return logs ? { logs, cached: false } : null;
}

/** One Transfer of a token in the block: enough to tell market transfers apart. */
export type BlockTransfer = { tx: Hex; logIndex: number; from: Hex; to: Hex };

/** A block's receipts, indexed once. */
export type BlockReceipts = {
  hash: Hex;
  /** The receipt's logs of `txHash`, or undefined if the transaction is not in this block. */
  logs: (txHash: Hex) => RawLog[] | undefined;
  /** Every Transfer log of `token` (lowercase) in the block, in log order. */
  transfers: (token: Hex) => BlockTransfer[];
  /** The tokens TokenManager2 created in the block (TokenCreate), lowercase, in log order. */
  created: () => Hex[];
  /** A handler found its transaction here: logs read from the node are kept (once). */
  confirm: () => void;
};

const memo = new Map<Hex, Promise<BlockReceipts>>();
/** Receipts read ahead by block number (unchecked until a handler asks for that block's hash). */
const ahead = new Map<bigint, Promise<Read>>();
let lastNumber: bigint | undefined;
/** The last block's logs came from the cache (a reindex): read ahead from the cache only. */
let lastCached = false;

/** The RPC still answered for another block than asked after every retry (fatal to Ponder). */
export class ReceiptMismatchError extends LaunchpadError<"RECEIPT_MISMATCH"> {
  override name = "ReceiptMismatchError";
  constructor(message: string) {
    super("RECEIPT_MISMATCH", { message, retryable: true });
  }
}

/**
 * The receipts of `block` (by hash), with `txHash` checked to be among them.
 *
 * @example
 * const receipts = await readBlockReceipts(event.transaction.hash, event.block);
 * const logs = receipts.logs(event.transaction.hash);
 */
export async function readBlockReceipts(
  txHash: Hex,
  block: { hash: Hex; number: bigint },
): Promise<BlockReceipts> {
  let last: unknown;
  for (let attempt = 0; attempt < RECEIPT_LIMITS.attempts; attempt++) {
    if (attempt > 0) await sleep(RECEIPT_LIMITS.backoffMs * 2 ** (attempt - 1));
    try {
      const receipts = await blockReceipts(block);
      if (receipts.logs(txHash)) {
        receipts.confirm();
        return receipts;
      }
      memo.delete(block.hash);
      last = new ReceiptMismatchError(`no receipt of ${txHash} in block ${block.hash}`);
    } catch (error) {
      if (!(error instanceof ReceiptMismatchError)) throw error;
      last = error;
    }
  }
  throw last;
}

function blockReceipts(block: { hash: Hex; number: bigint }): Promise<BlockReceipts> {
  const known = memo.get(block.hash);
  if (known) return known;
  const blockHash = block.hash;
  const early = ahead.get(block.number);
  ahead.delete(block.number);
  const pending = (async () => {
    const got = early ? await early.catch(() => null) : null;
    // Read ahead by number: usable only if it is this very block (not another fork's, not empty).
    const read =
      got && got.logs.length > 0 && got.logs.every((r) => r.blockHash === blockHash)
        ? got
        : await readCachedOrNode({ hash: blockHash }, true);
    if (!read) throw new ReceiptMismatchError(`no receipts for block ${blockHash}`);
    lastCached = read.cached;
    return indexLogs(block, read);
  })();
  pending.catch(() => memo.delete(blockHash));
  memo.set(blockHash, pending);
  if (memo.size > RECEIPT_LIMITS.memoBlocks) memo.delete(memo.keys().next().value as Hex);
  // Blocks with trades one after another: the next ones will be asked for too.
  if (lastNumber !== undefined && block.number === lastNumber + 1n) {
    for (let k = 1n; k <= BigInt(RECEIPT_LIMITS.readAhead); k++) {
      const n = block.number + k;
      if (ahead.has(n)) continue;
      const next = readCachedOrNode({ number: n }, !lastCached);
      next.catch(() => undefined);
      ahead.set(n, next);
    }
  }
  for (const n of ahead.keys()) if (n <= block.number) ahead.delete(n);
  lastNumber = block.number;
  return pending;
}

/** Logs by transaction (only those of this block) and Transfer logs by token, built lazily. */
function indexLogs(block: { hash: Hex; number: bigint }, read: NonNullable<Read>): BlockReceipts {
  const { hash: blockHash } = block;
  const raw = read.logs;
  let kept = read.cached;
  const byTx = new Map<Hex, RawLog[]>();
  for (const log of raw) {
    if (log.blockHash !== blockHash) continue;
    const list = byTx.get(log.transactionHash);
    if (list) list.push(log);
    else byTx.set(log.transactionHash, [log]);
  }
  for (const list of byTx.values()) list.sort((a, b) => Number(a.logIndex) - Number(b.logIndex));
  let byToken: Map<Hex, BlockTransfer[]> | undefined;
  return {
    hash: blockHash,
    confirm: () => {
      if (kept) return;
      kept = true;
      keepLogs(block, TOPICS_KEY, raw);
    },
    logs: (txHash) => byTx.get(txHash),
    transfers: (token) => {
      if (!byToken) {
        byToken = new Map();
        for (const [tx, logs] of byTx) {
          for (const log of logs) {
            if (log.topics[0] !== TRANSFER || log.topics.length !== 3) continue;
            const address = log.address.toLowerCase() as Hex;
            const list = byToken.get(address) ?? [];
            if (list.length === 0) byToken.set(address, list);
            list.push({
              tx,
              logIndex: Number(log.logIndex),
              from: topicAddress(log.topics[1] as Hex),
              to: topicAddress(log.topics[2] as Hex),
            });
          }
        }
        for (const list of byToken.values()) list.sort((a, b) => a.logIndex - b.logIndex);
      }
      return byToken.get(token) ?? [];
    },
    created: () => {
      const tokens: Hex[] = [];
      for (const log of raw) {
        if (log.blockHash !== blockHash || log.topics[0] !== TOKEN_CREATE) continue;
        if (log.address.toLowerCase() !== settings.tokenManager2) continue;
        // TokenCreate(creator, token, ...), nothing indexed: the token is the second data word.
        tokens.push(`0x${log.data.slice(2 + 64 + 24, 2 + 128).toLowerCase()}` as Hex);
      }
      return tokens;
    },
  };
}

/** The address in an indexed topic (lowercase). */
export const topicAddress = (topic: Hex) => `0x${topic.slice(26).toLowerCase()}` as Hex;
