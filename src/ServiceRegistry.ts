import { type Context, ponder } from "ponder:registry";
import { identity, identityChange, registryAgent, token, watchedWallet } from "ponder:schema";
import { agentState } from "./agent-state.ts";
import { replayBeforeRegistration } from "./before-registration.ts";
import { type Hex, logId, lower, settings, ZERO } from "./settings.ts";

type Agent = { owner: Hex | null; agentURI: string; agentWallet: Hex | null };

/**
 * The agent's owner, URI and wallet at this point of the chain, or undefined if it does not
 * exist. From the registry's events (src/IdentityRegistry.ts) when they are known: no contract
 * read, so a fresh index of an old devnet (anvil keeps 64 past states) needs no state at an old
 * block, and the link costs no round trip through Ponder's RPC queue. Otherwise (BSC, whose
 * registry predates the index) a read pinned to the event's block through Ponder's client, whose
 * RPC cache serves a reindex (src/agent-state.ts).
 */
async function readAgent(
  context: Context,
  registry: Hex,
  agentId: bigint,
  blockHash: Hex,
): Promise<Agent | undefined> {
  const known = await context.db.find(registryAgent, { agentId });
  if (known || settings.identityEventsComplete) return known ?? undefined;
  const read = await agentState(context, registry, agentId, blockHash);
  if (!read) return undefined;
  return {
    owner: lower(read.owner),
    agentURI: read.agentURI ?? "",
    agentWallet: read.agentWallet ? lower(read.agentWallet) : null,
  };
}

// A registration names a service token after its creation (the saga creates, then registers):
// the token's row, its treasury and identity, then its logs from the creation block on.
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
  await linkIdentity(context, a.agentId, treasury, event.block.number, event.block.hash);
  // Last: the replayed transfers see the treasury and the agent wallet as watched wallets.
  await replayBeforeRegistration(context, {
    token: address,
    createdBlock: a.createdBlock,
    registration: { block: event.block, logIndex: event.log.logIndex },
  });
});

/**
 * The identity row starts from the agent's state at this link (readAgent), then follows the
 * registry's events; a known identity only learns its treasury.
 */
async function linkIdentity(
  context: Context,
  agentId: bigint,
  treasury: Hex,
  blockNumber: bigint,
  blockHash: Hex,
) {
  const existing = await context.db.find(identity, { agentId });
  if (existing) {
    await context.db.update(identity, { agentId }).set({ treasury });
    return;
  }
  const registry = context.contracts.IdentityRegistry.address as `0x${string}`;
  const agent = await readAgent(context, registry, agentId, blockHash);
  if (!agent?.owner) return;
  const agentWallet = agent.agentWallet && agent.agentWallet !== ZERO ? agent.agentWallet : null;
  await context.db.insert(identity).values({
    agentId,
    owner: agent.owner,
    agentURI: agent.agentURI,
    agentWallet,
    treasury,
    metadata: {},
    linkedBlock: blockNumber,
  });
  if (agentWallet) {
    await context.db
      .insert(watchedWallet)
      .values({ address: agentWallet, role: "agent_wallet", agentId })
      .onConflictDoNothing();
  }
}
