// An agent's state read from the identity registry at an event's block (ServiceRegistry.ts).
// Registers no handler.
//
// The three reads go in one Multicall3 `tryAggregate`: a plain `eth_call` that does not revert
// when the agent does not exist. Ponder's RPC cache keeps the answer of a call that succeeded and
// never one that reverted, so separate reads of a missing agent went to the node on every
// registration and again on every reindex; this one is answered from the cache on a reindex.
import type { Context } from "ponder:registry";
import { decodeFunctionResult, encodeFunctionData, type Hex, parseAbi } from "viem";
import { identityRegistryAbi } from "../abis/IdentityRegistry.ts";
import { MULTICALL3_ADDRESS } from "../lib/chain.ts";
import { RECEIPT_LIMITS } from "./limits.ts";

// Declared `view` (it is `payable`): an eth_call either way, and viem reads only view functions.
const tryAggregateAbi = parseAbi([
  "function tryAggregate(bool requireSuccess, (address target, bytes callData)[] calls) view returns ((bool success, bytes returnData)[])",
]);
const READS = ["ownerOf", "tokenURI", "getAgentWallet"] as const;

/** The registry's answers at a block (undefined: reverted), or undefined if it has no owner. */
export type AgentState = { owner: Hex; agentURI: string | undefined; agentWallet: Hex | undefined };

/** Per block hash and agent: registrations of one block ask once. */
const memo = new Map<string, Promise<AgentState | undefined>>();

/**
 * `ownerOf`, `tokenURI` and `getAgentWallet` of `agentId` at the event's block, in one call.
 *
 * @example
 * const agent = await agentState(context, registry, agentId, event.block.hash);
 */
export function agentState(
  context: Context,
  registry: Hex,
  agentId: bigint,
  blockHash: Hex,
): Promise<AgentState | undefined> {
  const key = `${blockHash}:${registry}:${agentId}`;
  const known = memo.get(key);
  if (known) return known;
  const read = (async () => {
    const results = await context.client.readContract({
      address: MULTICALL3_ADDRESS,
      abi: tryAggregateAbi,
      functionName: "tryAggregate",
      args: [
        false,
        READS.map((functionName) => ({
          target: registry,
          callData: encodeFunctionData({
            abi: identityRegistryAbi,
            functionName,
            args: [agentId],
          } as never),
        })),
      ],
    });
    const value = (i: number) => {
      const r = results[i];
      if (!r?.success || r.returnData === "0x") return undefined;
      const functionName = READS[i] as (typeof READS)[number];
      return decodeFunctionResult({
        abi: identityRegistryAbi,
        functionName,
        data: r.returnData,
      } as never) as unknown;
    };
    const owner = value(0) as Hex | undefined;
    if (!owner) return undefined;
    return {
      owner,
      agentURI: value(1) as string | undefined,
      agentWallet: value(2) as Hex | undefined,
    };
  })();
  read.catch(() => memo.delete(key));
  memo.set(key, read);
  if (memo.size > RECEIPT_LIMITS.memoBlocks) memo.delete(memo.keys().next().value as string);
  return read;
}
