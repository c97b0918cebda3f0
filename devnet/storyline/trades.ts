import { type Address, type LocalAccount, parseEther } from "viem";
import { tokenManager2Abi } from "../../abis/TokenManager2.ts";
import {
  approveCall,
  buyCall,
  dexBuyCall,
  dexSellCall,
  STORY_GAS,
  sellCall,
  transferCall,
} from "./calls.ts";
import type { StoryWorld } from "./world.ts";

/** Sells and transfers move whole gwei of token (the curve's unit). */
const GWEI = 10n ** 9n;

export type CurveTradesParameters = {
  traders: LocalAccount[];
  tokens: Address[];
  /** Wallets transfers may go to (agent wallets among them). */
  recipients: Address[];
  count: number;
  /**
   * Parallel: traders at once, each one's trades in sequence, a refused trade counted (racing
   * traders may see a token's state change). Sequential: a random trader per trade, any
   * failure throws.
   */
  parallel: boolean;
  log: (msg: string) => void;
};

/** Random curve trades: buys (kept below graduation), sells and wallet-to-wallet transfers. */
export async function curveTrades(
  world: StoryWorld,
  p: CurveTradesParameters,
): Promise<{ made: number; refused: number }> {
  const { random, record } = world;
  const c = record.contracts;
  const maxRaising = BigInt(record.params.maxRaising);
  const pick = <T>(xs: readonly T[]) => xs[Number(random(BigInt(xs.length)))] as T;
  const approved = new Set<string>();
  let made = 0;
  let refused = 0;

  const trade = async (trader: LocalAccount) => {
    const token = pick(p.tokens);
    const held = await world.balanceOf(token, trader.address);
    const info = await world.client.readContract({
      address: c.tokenManager2,
      abi: tokenManager2Abi,
      functionName: "_tokenInfos",
      args: [token],
    });
    if (info[12] !== 0n) return; // graduated meanwhile: off the curve
    const roll = random(10n);
    if (roll === 0n && held > 0n && p.recipients.length > 0) {
      await world.send(trader, transferCall(token, pick(p.recipients), held / 3n));
    } else if (roll < 4n && held > GWEI) {
      if (!approved.has(`${trader.address}:${token}`)) {
        await world.send(trader, approveCall(token, c.tokenManager2));
        approved.add(`${trader.address}:${token}`);
      }
      const part = held / (1n + random(3n));
      await world.send(trader, sellCall(c, token, part - (part % GWEI)));
    } else {
      // Stay well below graduation: only the storyline's chosen token graduates.
      const room = (maxRaising - info[8]) / 8n;
      const funds = (parseEther("0.01") + random(parseEther("0.4"))) % (room + 1n);
      if (funds < 10n ** 12n) return;
      await world.send(trader, buyCall(c, token, funds));
    }
    made++;
  };

  if (!p.parallel) {
    for (let k = 0; k < p.count; k++) await trade(pick(p.traders));
    return { made, refused };
  }
  const lanes = p.traders.length;
  await Promise.all(
    p.traders.map(async (trader, i) => {
      const mine = Math.floor(p.count / lanes) + (i < p.count % lanes ? 1 : 0);
      for (let k = 0; k < mine; k++) {
        await trade(trader).catch((error: Error) => {
          refused++;
          p.log(`trade refused: ${error.message.split("\n")[0]}`);
        });
      }
    }),
  );
  return { made, refused };
}

/**
 * Graduates `token` with one large buy from `whale`, then makes `swaps` DEX swaps on its pair
 * through the router (every third one a sell of half the trader's tokens).
 */
export async function graduate(
  world: StoryWorld,
  p: { whale: LocalAccount; token: Address; traders: LocalAccount[]; swaps: number },
): Promise<void> {
  const c = world.record.contracts;
  const raise = BigInt(world.record.params.maxRaising) * 2n;
  await world.send(p.whale, buyCall(c, p.token, raise, STORY_GAS.heavy));
  const deadline = (await world.client.getBlock()).timestamp + 86_400n * 30n;
  for (let k = 0; k < p.swaps; k++) {
    const t = p.traders[k % p.traders.length] as LocalAccount;
    const held = await world.balanceOf(p.token, t.address);
    if (k % 3 === 2 && held > 0n) {
      await world.send(t, approveCall(p.token, c.uniswapV2Router, held));
      await world.send(t, dexSellCall(c, p.token, t.address, held / 2n, deadline));
    } else {
      const funds = parseEther("0.05") + world.random(parseEther("0.5"));
      await world.send(t, dexBuyCall(c, p.token, t.address, funds, deadline));
    }
  }
}
