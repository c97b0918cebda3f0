// ERC-8004 identities. Every registry event is read (the registry is one contract: bounded),
// but rows are kept only for agents linked to a service token by ServiceTokenRegistered.agentId;
// the link snapshots the identity (src/ServiceRegistry.ts) and these handlers follow it after.
import { ponder } from "ponder:registry";
import { identity, identityChange, watchedWallet } from "ponder:schema";
import { logId, lower } from "./settings.ts";

ponder.on("IdentityRegistry:URIUpdated", async ({ event, context }) => {
  const agentId = event.args.agentId;
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
  const row = await context.db.find(identity, { agentId });
  if (!row) return;
  const key = event.args.metadataKey;
  const value = event.args.metadataValue;
  if (key === "agentWallet") {
    // The reserved key holds the wallet as 20 bytes (empty when unset).
    const wallet = value.length >= 42 ? lower(`0x${value.slice(-40)}`) : null;
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
