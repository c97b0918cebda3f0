// A registered token's logs from its creation up to its registration. Registers no handler.
//
// The launch saga registers a token after createToken (four.meme names the token only in the
// receipt), and Ponder matches a factory child's logs from the factory event's block on: the
// mint and any trade before the registration reach no handler. The registration handler hands
// them to the token's own handlers here, in log order, as Ponder would have delivered them.
//
// Blocks are walked back by parent hash from the registration's block, and each block's logs of
// the token are read by block hash: every read names the fork Ponder is indexing, so a reorg
// that drops the registration drops what was replayed with it (Ponder reverts the handler's
// writes) and nothing is read from another fork.
import type { Context } from "ponder:registry";
import { decodeEventLog, type Hex } from "viem";
import { taxTokenAbi } from "../abis/TaxToken.ts";
import type { RawLog } from "./receipts.ts";
import { chainClient } from "./rpc.ts";
import { onFeeClaimed, onFeeDispatched, onTransfer } from "./ServiceToken.ts";

type BlockRef = { number: bigint; hash: Hex; parentHash: Hex; timestamp: bigint };

const getLogs = chainClient.request as unknown as (args: {
  method: "eth_getLogs";
  params: [{ blockHash: Hex; address: Hex }];
}) => Promise<RawLog[] | null>;

export type ReplayBeforeRegistrationParameters = {
  token: Hex;
  /** The block of the token's TokenCreate, as registered. */
  createdBlock: bigint;
  /** The registration event's block and log index: logs before it are replayed. */
  registration: { block: BlockRef; logIndex: number };
};

/**
 * Replays the token's Transfer, FeeDispatched and FeeClaimed logs from `createdBlock` to just
 * before the registration log. Returns how many logs it handed on.
 *
 * @example
 * await replayBeforeRegistration(context, {
 *   token, createdBlock: event.args.createdBlock,
 *   registration: { block: event.block, logIndex: event.log.logIndex },
 * });
 */
export async function replayBeforeRegistration(
  context: Context,
  p: ReplayBeforeRegistrationParameters,
): Promise<number> {
  const blocks: BlockRef[] = [p.registration.block];
  while ((blocks[0] as BlockRef).number > p.createdBlock) {
    const parent = await context.client.getBlock({ blockHash: (blocks[0] as BlockRef).parentHash });
    blocks.unshift(parent as BlockRef);
  }
  let replayed = 0;
  for (const block of blocks) {
    const logs = await getLogs({
      method: "eth_getLogs",
      params: [{ blockHash: block.hash, address: p.token }],
    });
    if (logs === null) throw new Error(`the node does not know block ${block.hash}`);
    const before = logs
      .filter((l) => block !== p.registration.block || Number(l.logIndex) < p.registration.logIndex)
      .sort((a, b) => Number(a.logIndex) - Number(b.logIndex));
    for (const log of before) {
      if (await replayOne(context, log, block)) replayed++;
    }
  }
  return replayed;
}

async function replayOne(context: Context, log: RawLog, block: BlockRef): Promise<boolean> {
  let decoded: ReturnType<typeof decodeEventLog<typeof taxTokenAbi>>;
  try {
    decoded = decodeEventLog({
      abi: taxTokenAbi,
      data: log.data,
      topics: log.topics as [Hex, ...Hex[]],
    });
  } catch {
    return false; // an event the token's handlers do not read
  }
  const tx = await context.client.getTransaction({ hash: log.transactionHash });
  const base = {
    log: { address: log.address, logIndex: Number(log.logIndex) },
    block,
    transaction: { hash: log.transactionHash, from: tx.from },
  };
  switch (decoded.eventName) {
    case "Transfer":
      await onTransfer({ event: { ...base, args: decoded.args }, context }, "registry");
      return true;
    case "FeeDispatched":
      await onFeeDispatched({ event: { ...base, args: decoded.args }, context }, "registry");
      return true;
    case "FeeClaimed":
      await onFeeClaimed({ event: { ...base, args: decoded.args }, context }, "registry");
      return true;
    default:
      return false;
  }
}
