import { ponder } from "ponder:registry";
import { identity, identityChange, token, watchedWallet } from "ponder:schema";
import { identityRegistryAbi } from "../abis/IdentityRegistry.ts";
import { unlessReverted } from "./rpc.ts";
import { logId, lower } from "./settings.ts";

// A registration names a service token before it exists (the saga registers, then creates).
ponder.on("ServiceRegistry:ServiceTokenRegistered", async ({ event, context }) => {
  const a = event.args;
  const address = lower(a.token);
  const treasury = lower(a.treasury);
  await context.db.insert(token).values({
    address,
    origin: "registry",
    creator: lower(a.creator),
    treasury,
    agentId: a.agentId,
    pair: lower(a.pair),
    status: "registered",
    registeredBlock: event.block.number,
  });
  await context.db
    .insert(watchedWallet)
    .values({ address: treasury, role: "treasury", agentId: a.agentId, token: address })
    .onConflictDoNothing();
  // The identity row starts from the registry's state at this block (its earlier events were
  // not kept: only agents linked to a service token are), then follows its events.
  const registry = context.contracts.IdentityRegistry.address as `0x${string}`;
  // The link is the identity's first fact in the agent's feed (identity.registered).
  await context.db.insert(identityChange).values({
    id: logId(event.transaction.hash, event.log.logIndex),
    agentId: a.agentId,
    kind: "linked",
    value: address,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    txHash: event.transaction.hash,
  });
  const existing = await context.db.find(identity, { agentId: a.agentId });
  if (existing) {
    await context.db.update(identity, { agentId: a.agentId }).set({ treasury });
    return;
  }
  // Ponder's client (pinned to this block), not ours: its RPC cache keeps the answer, so a
  // reindex of a devnet that keeps only recent states (docs/devnet-state.md) can still read it.
  const read = <T>(functionName: string) =>
    unlessReverted(
      context.client.readContract({
        address: registry,
        abi: identityRegistryAbi,
        functionName: functionName as never,
        args: [a.agentId] as never,
      }),
    ).then((v) => v as T | undefined);
  const [owner, uri, wallet] = await Promise.all([
    read<`0x${string}`>("ownerOf"),
    read<string>("tokenURI"),
    read<`0x${string}`>("getAgentWallet"),
  ]);
  if (!owner) return;
  const agentWallet =
    wallet && wallet !== "0x0000000000000000000000000000000000000000" ? lower(wallet) : null;
  await context.db.insert(identity).values({
    agentId: a.agentId,
    owner: lower(owner),
    agentURI: uri ?? "",
    agentWallet,
    treasury,
    metadata: {},
    linkedBlock: event.block.number,
  });
  if (agentWallet) {
    await context.db
      .insert(watchedWallet)
      .values({ address: agentWallet, role: "agent_wallet", agentId: a.agentId })
      .onConflictDoNothing();
  }
});
