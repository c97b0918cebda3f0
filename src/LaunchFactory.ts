import { ponder } from "ponder:registry";
import { launch, token, watchedWallet } from "ponder:schema";
import { launchFactoryAbi } from "../abis/LaunchFactory.ts";
import { pairAddress } from "../lib/pair.ts";
import { lower, settings } from "./settings.ts";

// A deposit launch: the vault, its treasury Safe and the predicted token, all in one tx.
ponder.on("LaunchFactory:LaunchCreated", async ({ event, context }) => {
  const a = event.args;
  const vault = lower(a.vault);
  const predictedToken = lower(a.predictedToken);
  const treasury = lower(a.treasury);
  await context.db.insert(launch).values({
    vault,
    id: a.launchId,
    router: lower(a.router),
    treasury,
    predictedToken,
    tier: Number(a.tier),
    creator: lower(a.creator),
    closeTimestamp: a.closeTimestamp,
    buyTaxBps: Number(a.buyTaxBps),
    sellTaxBps: Number(a.sellTaxBps),
    totalDeposited: 0n,
    depositorCount: 0,
    status: "open",
    totalClaimed: 0n,
    totalRefunded: 0n,
    createdBlock: event.block.number,
    createdAt: event.block.timestamp,
  });
  await context.db.insert(token).values({
    address: predictedToken,
    origin: "launch",
    creator: lower(a.creator),
    treasury,
    pair: pairAddress({
      factory: settings.dexFactory,
      token: predictedToken,
      wbnb: settings.wbnb,
      initCodeHash: settings.pairInitCodeHash,
    }),
    launchVault: vault,
    status: "registered",
    registeredBlock: event.block.number,
  });
  await context.db
    .insert(watchedWallet)
    .values({ address: treasury, role: "treasury", token: predictedToken })
    .onConflictDoNothing();
});

// Emitted in the same transaction as LaunchCreated, after it; joined by launchId through the vault
// the factory names in the LaunchCreated of that transaction.
ponder.on("LaunchFactory:LaunchMetadata", async ({ event, context }) => {
  const vault = await context.client.readContract({
    address: event.log.address,
    abi: launchFactoryAbi,
    functionName: "vaults",
    args: [event.args.launchId],
  });
  const key = { vault: lower(vault) };
  await context.db.update(launch, key).set({
    name: event.args.name,
    symbol: event.args.symbol,
    metadata: event.args.metadata,
  });
  const l = await context.db.find(launch, key);
  if (l) {
    await context.db
      .update(token, { address: l.predictedToken })
      .set({ name: event.args.name, symbol: event.args.symbol });
  }
});
