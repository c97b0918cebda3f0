// ERC-8004 identities. Every registry event is read (the registry is one contract: bounded).
// `registry_agent` keeps every agent's owner, URI and wallet, so a link
// (ServiceTokenRegistered.agentId, src/ServiceRegistry.ts) snapshots the identity without a
// contract read; the full rows and their history are kept only for linked agents, and these
// handlers follow them after the link.
import { type Context, ponder } from "ponder:registry";
import { identity, identityChange, registryAgent, watchedWallet } from "ponder:schema";
import { type Hex, logId, lower, ZERO } from "./settings.ts";

type AgentFields = Partial<Omit<typeof registryAgent.$inferInsert, "agentId">>;

/** Sets fields of an agent's registry_agent row (created by its mint, before any other event). */
async function setAgent(context: Context, agentId: bigint, fields: AgentFields) {
  await context.db
    .insert(registryAgent)
    .values({ agentId, agentURI: "", ...fields })
    .onConflictDoUpdate(fields);
}

/** The reserved agentWallet value: 20 bytes, or empty when unset. */
const walletOf = (value: Hex) => (value.length >= 42 ? lower(`0x${value.slice(-40)}`) : null);

// `_register` emits Transfer (mint), MetadataSet(agentWallet), then Registered with the URI.
ponder.on("IdentityRegistry:Registered", async ({ event, context }) => {
  await setAgent(context, event.args.agentId, { agentURI: event.args.agentURI });
});

ponder.on("IdentityRegistry:URIUpdated", async ({ event, context }) => {
  const agentId = event.args.agentId;
  await setAgent(context, agentId, { agentURI: event.args.newURI });
  if (!(await context.db.find(identity, { agentId }))) return;
  await context.db.update(identity, { agentId }).set({ agentURI: event.args.newURI });
  await context.db.insert(identityChange).values({
    id: logId(event.transaction.hash, event.log.logIndex),
    agentId,
    kind: "uri",
    value: event.args.newURI,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    txHash: event.transaction.hash,
  });
});

ponder.on("IdentityRegistry:MetadataSet", async ({ event, context }) => {
  const agentId = event.args.agentId;
  if (event.args.metadataKey === "agentWallet") {
    await setAgent(context, agentId, { agentWallet: walletOf(event.args.metadataValue) });
  }
  const row = await context.db.find(identity, { agentId });
  if (!row) return;
  const key = event.args.metadataKey;
  const value = event.args.metadataValue;
  if (key === "agentWallet") {
    // The reserved key holds the wallet as 20 bytes (empty when unset).
    const wallet = walletOf(value);
    await context.db.update(identity, { agentId }).set({ agentWallet: wallet });
    if (wallet) {
      await context.db
        .insert(watchedWallet)
        .values({ address: wallet, role: "agent_wallet", agentId })
        .onConflictDoNothing();
    }
  } else {
    await context.db
      .update(identity, { agentId })
      .set({ metadata: { ...row.metadata, [key]: value } });
  }
  await context.db.insert(identityChange).values({
    id: logId(event.transaction.hash, event.log.logIndex),
    agentId,
    kind: "metadata",
    key,
    value,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    txHash: event.transaction.hash,
  });
});

ponder.on("IdentityRegistry:Transfer", async ({ event, context }) => {
  const agentId = event.args.tokenId;
  // A burn: ownerOf reverts from here on, as for an agent that never existed.
  const to = lower(event.args.to);
  await setAgent(context, agentId, { owner: to === ZERO ? null : to });
  if (!(await context.db.find(identity, { agentId }))) return;
  const owner = lower(event.args.to);
  await context.db.update(identity, { agentId }).set({ owner });
  await context.db.insert(identityChange).values({
    id: logId(event.transaction.hash, event.log.logIndex),
    agentId,
    kind: "owner",
    value: owner,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    txHash: event.transaction.hash,
  });
});
