import { type Address, type LocalAccount, parseEther, parseEventLogs } from "viem";
import { launchFactoryAbi } from "../../abis/LaunchFactory.ts";
import { createLaunchCall, vaultCall } from "./calls.ts";
import { eachOf, type StoryWorld } from "./world.ts";

/** How long a storyline deposit launch stays open (s); the story then moves time past it. */
const OPEN_SECONDS = 600n;

export type DepositLaunchesParameters = {
  creator: LocalAccount;
  /** At least three: deposits, a withdrawal, and two deposits into the launch that is refunded. */
  depositors: LocalAccount[];
  parallel: boolean;
};

/**
 * Two deposit launches on the first tier: one raised past its minimum, launched, claimed and
 * distributed; one that stays short, refunded.
 */
export async function depositLaunches(
  world: StoryWorld,
  p: DepositLaunchesParameters,
): Promise<{ launchedVault: Address; refundedVault: Address }> {
  const tier = world.record.params.tiers[0];
  if (!tier) throw new Error("the deployment record lists no deposit tier");
  const [d0, d1, d2] = p.depositors;
  if (!d0 || !d1 || !d2) throw new Error("a deposit storyline needs three depositors");
  const minRaise = BigInt(tier.minRaise);
  const maxPerWallet = BigInt(tier.maxPerWallet);
  const c = world.record.contracts;
  const create = async (symbol: string) => {
    const close = (await world.client.getBlock()).timestamp + OPEN_SECONDS;
    const meta = JSON.stringify({ description: "storyline deposit launch" });
    const receipt = await world.send(
      p.creator,
      createLaunchCall(c, { tierId: tier.id, symbol, meta, close, creator: p.creator.address }),
    );
    const [ev] = parseEventLogs({
      abi: launchFactoryAbi,
      logs: receipt.logs,
      eventName: "LaunchCreated",
    });
    if (!ev) throw new Error("createLaunch emitted no LaunchCreated");
    return ev.args.vault;
  };
  const launchedVault = await create("DEPA");
  const refundedVault = await create("DEPB");
  // Together past the minimum even after the withdrawal below; each within the wallet cap.
  const share = minRaise / BigInt(p.depositors.length) + parseEther("0.2");
  await eachOf(p.depositors, p.parallel, (d) => {
    const value = share + world.random(parseEther("0.5"));
    return world.send(
      d,
      vaultCall(launchedVault, {
        fn: "deposit",
        value: value > maxPerWallet ? maxPerWallet : value,
      }),
    );
  });
  await world.send(d1, vaultCall(launchedVault, { fn: "withdraw", amount: parseEther("0.1") }));
  await world.send(d0, vaultCall(refundedVault, { fn: "deposit", value: minRaise / 5n }));
  await world.send(d2, vaultCall(refundedVault, { fn: "deposit", value: (minRaise * 3n) / 10n }));
  await world.test.increaseTime({ seconds: Number(OPEN_SECONDS) + 1 });
  await world.test.mine({ blocks: 1 });
  await world.send(p.creator, vaultCall(launchedVault, { fn: "close" }));
  await world.send(p.creator, vaultCall(launchedVault, { fn: "executeLaunch" }));
  await world.send(d0, vaultCall(launchedVault, { fn: "claim" }));
  const count = BigInt(p.depositors.length);
  await world.send(p.creator, vaultCall(launchedVault, { fn: "distribute", from: 0n, count }));
  await world.send(p.creator, vaultCall(refundedVault, { fn: "enableRefund" }));
  await world.send(d0, vaultCall(refundedVault, { fn: "refund" }));
  return { launchedVault, refundedVault };
}
