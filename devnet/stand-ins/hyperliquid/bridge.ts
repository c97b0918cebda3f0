import { type Address, createPublicClient, http, type PublicClient, parseAbiItem } from "viem";
import { readChainIdentity } from "../../../lib/chain.ts";
import type { Logger } from "../../../lib/logger.ts";
import { STAND_IN_LIMITS } from "../../limits.ts";
import type { BridgeState, Venue } from "./venue.ts";

const TRANSFER = parseAbiItem(
  "event Transfer(address indexed from, address indexed to, uint256 value)",
);
const L = STAND_IN_LIMITS;

/** The Arbitrum chain whose USDC transfers to the bridge the venue credits as deposits. */
export type BridgeSettings = {
  rpcUrl: string;
  usdc: Address;
  bridge: Address;
  /** First block to scan on a chain seen for the first time. */
  startBlock: number;
};

/**
 * One scan step: USDC `Transfer`s to the bridge since the cursor, each credited once to its
 * sender as a `deposit` (as Hyperliquid credits a Bridge2 deposit; under the minimum it is
 * refused, and lost). The credits, the keys seen (`<txHash>:<logIndex>`) and the new cursor
 * change together in one synchronous step and reach the disk in one write, so a stand-in
 * killed at any moment restarts from a state where every credit below its cursor is booked
 * exactly once. A reorg under the cursor (the block before it changed) rescans the last blocks;
 * another chain (a reset devnet: a different block 1) starts over from `startBlock`. Returns
 * the number of deposits credited.
 */
export async function scanBridge(
  venue: Venue,
  client: PublicClient,
  b: BridgeSettings,
  log: Logger,
): Promise<number> {
  const identity = await readChainIdentity(client);
  if (!identity) return 0;
  let s: BridgeState = venue.state.bridge ?? { identity, nextBlock: b.startBlock, seen: [] };
  if (s.identity !== identity) {
    log.info({ identity }, "bridge: another Arbitrum chain; scanning it from its start block");
    s = { identity, nextBlock: b.startBlock, seen: [] };
  }
  if (s.lastHash && s.nextBlock > b.startBlock) {
    const before = await client
      .getBlock({ blockNumber: BigInt(s.nextBlock - 1) })
      .catch(() => null);
    if (before?.hash !== s.lastHash) {
      const nextBlock = Math.max(b.startBlock, s.nextBlock - L.hyperliquidBridgeRescanBlocks);
      log.info({ from: nextBlock }, "bridge: reorg under the cursor; rescanning");
      s = { ...s, nextBlock, lastHash: undefined };
    }
  }
  const head = Number(await client.getBlockNumber());
  if (s.nextBlock > head) {
    venue.state.bridge = s;
    return 0;
  }
  const to = Math.min(head, s.nextBlock + L.hyperliquidBridgeMaxBlocks - 1);
  const [logs, last] = await Promise.all([
    client.getLogs({
      address: b.usdc,
      event: TRANSFER,
      args: { to: b.bridge },
      fromBlock: BigInt(s.nextBlock),
      toBlock: BigInt(to),
    }),
    client.getBlock({ blockNumber: BigInt(to) }),
  ]);
  // From here to the save nothing awaits: credits and cursor move together.
  const seen = new Set(s.seen);
  let credited = 0;
  for (const l of logs) {
    const key = `${l.transactionHash}:${l.logIndex}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const usdc = Number(l.args.value ?? 0n) / 1e6;
    const from = (l.args.from as Address).toLowerCase();
    if (usdc < L.hyperliquidMinDepositUsdc) {
      log.warn({ from, usdc, tx: l.transactionHash }, "bridge: under the minimum deposit; lost");
      continue;
    }
    venue.deposit(from, usdc);
    credited++;
    log.info({ user: from, usdc, tx: l.transactionHash }, "bridge deposit credited");
  }
  venue.state.bridge = { identity, nextBlock: to + 1, lastHash: last.hash, seen: [...seen] };
  venue.save();
  return credited;
}

/**
 * Scans the bridge every `everyMs` until stopped; a failed scan (the chain unreachable) is
 * tried again on the next tick from the same cursor. `stop` resolves once a scan under way has
 * ended, so nothing is written after it.
 */
export function watchBridge(
  venue: Venue,
  b: BridgeSettings,
  log: Logger,
  everyMs: number = L.hyperliquidBridgeEveryMs,
): () => Promise<void> {
  const client = createPublicClient({ transport: http(b.rpcUrl, { retryCount: 0 }) });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = scanBridge(venue, client, b, log).then(
      () => undefined,
      (error: unknown) => log.warn({ err: error }, "bridge scan failed; retrying next tick"),
    );
    void running.then(() => {
      if (!stopped) timer = setTimeout(tick, everyMs);
    });
  };
  timer = setTimeout(tick, 0);
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await running;
  };
}
