import { type Address, parseEther } from "viem";
import type { DeploymentRecord } from "../../devnet/record.ts";
import {
  approveCall,
  buyCall,
  fundCall,
  sellCall,
  transferCall,
} from "../../devnet/storyline/calls.ts";
import { serviceTokenCalls } from "../../devnet/storyline/tokens.ts";
import { type StoryWorld, storyWorld } from "../../devnet/storyline/world.ts";

export type LateRegistrationParameters = { rpcUrl: string; record: DeploymentRecord; seed: number };

/**
 * A service token whose ServiceRegistry entry comes blocks after its creation, as the launch
 * saga does it and later: created, bought, sold and transferred before the entry, and bought
 * once more in the entry's own block, ordered before it. The index must show all of it
 * (src/before-registration.ts). Runs on an automining devnet and leaves automine on.
 */
export async function lateRegisteredToken(p: LateRegistrationParameters): Promise<Address> {
  const world = storyWorld({ rpcUrl: p.rpcUrl, record: p.record, seed: p.seed + 1000 });
  const c = p.record.contracts;
  const [creator, a, b] = ["late-creator", "late-a", "late-b"].map(world.account) as [
    StoryWorld["roles"]["deployer"],
    StoryWorld["roles"]["deployer"],
    StoryWorld["roles"]["deployer"],
  ];
  for (const w of [creator, a, b]) {
    await world.send(world.roles.deployer, fundCall(w.address, parseEther("5")));
  }
  const calls = await serviceTokenCalls({
    client: world.client,
    record: p.record,
    signer: world.roles.launchpadSigner,
    name: "Late Agent",
    symbol: "LATE",
    requestId: BigInt(p.seed) * 1000n + 999n,
    creator: creator.address,
    treasury: world.account("late-treasury").address,
    agentId: 0n,
  });
  const created = await world.send(creator, calls.create);
  const token = calls.token;
  await world.send(a, buyCall(c, token, parseEther("0.4")));
  await world.send(b, buyCall(c, token, parseEther("0.2")));
  // The curve trades whole gwei of token.
  const quarter = ((await world.balanceOf(token, a.address)) / 4n / 10n ** 9n) * 10n ** 9n;
  await world.send(a, transferCall(token, b.address, quarter));
  await world.send(a, approveCall(token, c.tokenManager2));
  await world.send(a, sellCall(c, token, quarter));
  // One block holding a buy and then the entry.
  await world.test.setAutomine(false);
  try {
    const buy = world.send(b, buyCall(c, token, parseEther("0.1")));
    await inPool(world, 1);
    const entry = world.send(world.roles.relayer, calls.register(created.blockNumber));
    await inPool(world, 2);
    await world.test.mine({ blocks: 1 });
    const [bought, registered] = await Promise.all([buy, entry]);
    if (
      bought.blockNumber !== registered.blockNumber ||
      bought.transactionIndex > registered.transactionIndex
    ) {
      throw new Error("the buy was not mined before the entry in the same block");
    }
  } finally {
    await world.test.setAutomine(true);
  }
  return token;
}

/** Waits (up to 15 s: a send signs and estimates first, slowly on a loaded machine) for the pool. */
async function inPool(world: StoryWorld, n: number) {
  for (let i = 0; i < 1_500; i++) {
    const status = (await world.client.request({ method: "txpool_status" } as never)) as {
      pending: `0x${string}`;
    };
    if (Number(status.pending) >= n) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`the node's pool never held ${n} transactions`);
}
