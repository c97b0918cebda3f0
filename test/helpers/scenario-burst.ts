import { type Address, parseEther } from "viem";
import type { DeploymentRecord } from "../../devnet/record.ts";
import { buyCall, dexBuyCall, transferCall } from "../../devnet/storyline/calls.ts";
import { storyWorld } from "../../devnet/storyline/world.ts";

export type TradeBurstParameters = {
  rpcUrl: string;
  record: DeploymentRecord;
  seed: number;
  /** Curve tokens to buy and sell on. */
  curveTokens: Address[];
  /** A graduated token to buy on the DEX, if any. */
  dexToken?: Address;
  /** Transactions (one block each on automine). */
  count: number;
};

/** Far enough that no burst swap expires. */
const DEADLINE = 2n ** 40n;

/**
 * A short burst of the storyline's trades and transfers from one fresh seeded wallet: a few
 * blocks of activity, small enough to stay inside Ponder's unfinalized window (30 blocks) for
 * reorg tests.
 */
export async function tradeBurst(p: TradeBurstParameters): Promise<void> {
  const world = storyWorld({ rpcUrl: p.rpcUrl, record: p.record, seed: p.seed });
  const c = p.record.contracts;
  const me = world.account("burst");
  const friend = world.account("burst-friend").address;
  await world.test.setBalance({ address: me.address, value: parseEther("100") });
  for (let k = 0; k < p.count; k++) {
    const token = p.curveTokens[k % p.curveTokens.length] as Address;
    const funds = parseEther("0.02") + world.random(parseEther("0.3"));
    if (p.dexToken && k % 4 === 3) {
      await world.send(me, dexBuyCall(c, p.dexToken, me.address, funds, DEADLINE));
    } else if (k % 4 === 2) {
      const held = await world.balanceOf(token, me.address);
      await world.send(me, transferCall(token, friend, held / 2n));
    } else {
      await world.send(me, buyCall(c, token, funds));
    }
  }
}
