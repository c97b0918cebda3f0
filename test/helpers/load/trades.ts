import { type Address, type LocalAccount, parseEther } from "viem";
import { tokenManager2Abi } from "../../../abis/TokenManager2.ts";
import {
  approveCall,
  buyCall,
  dexBuyCall,
  STORY_GAS,
  sellCall,
} from "../../../devnet/storyline/calls.ts";
import type { StoryWorld } from "../../../devnet/storyline/world.ts";
import { zipf } from "./stats.ts";

export type TradeCounts = {
  sent: number;
  mined: number;
  reverted: number;
  /** Not sent: the in-flight cap was reached (the chain or this process fell behind). */
  skipped: number;
  dex: number;
  graduated: number;
};

/**
 * Trades at a rate the caller sets, open loop (a tick every 1/rate s, whether or not the last
 * answered): a token drawn by Zipf rank from `tokens` (launch order: the oldest are the most
 * traded), on its curve (4 buys to 1 sell) until a buy reverts on a graduated token, then on
 * its DEX pair. Every mined trade's hash goes into `mined` with its block.
 */
export function startTrading(p: {
  world: StoryWorld;
  traders: LocalAccount[];
  tokens: Address[];
  random: () => number;
}) {
  const c = p.world.record.contracts;
  const rank = zipf(p.random);
  const graduated = new Set<Address>();
  const approved = new Set<string>();
  const counts: TradeCounts = { sent: 0, mined: 0, reverted: 0, skipped: 0, dex: 0, graduated: 0 };
  const mined = new Map<string, bigint>(); // tx hash -> block
  let rate = 0;
  let inFlight = 0;
  let stopped = false;
  let k = 0;
  const one = async () => {
    const token = p.tokens[rank(p.tokens.length)] as Address;
    const trader = p.traders[k++ % p.traders.length] as LocalAccount;
    const funds = parseEther("0.01") + BigInt(Math.floor(p.random() * 4e16));
    let call = buyCall(c, token, funds);
    if (graduated.has(token)) {
      counts.dex++;
      call = dexBuyCall(
        c,
        token,
        trader.address,
        funds,
        BigInt(Math.floor(Date.now() / 1000) + 3600),
      );
    } else if (p.random() < 0.2) {
      const held = await p.world.balanceOf(token, trader.address).catch(() => 0n);
      if (held > 10n ** 18n) {
        // The curve pulls what it buys back: one unlimited approval per trader and token.
        if (!approved.has(`${trader.address}:${token}`)) {
          approved.add(`${trader.address}:${token}`);
          await p.world.send(trader, approveCall(token, c.tokenManager2)).catch(() => undefined);
        }
        call = sellCall(c, token, (held / 3n / 10n ** 9n) * 10n ** 9n);
      }
    }
    counts.sent++;
    try {
      const receipt = await p.world.send(trader, call);
      mined.set(receipt.transactionHash, receipt.blockNumber);
      counts.mined++;
    } catch {
      counts.reverted++;
      // A curve buy that reverts: the token graduated (its curve is closed); DEX from now on.
      if (!graduated.has(token) && (await isGraduated(token))) {
        graduated.add(token);
        counts.graduated++;
      }
    }
  };
  const isGraduated = async (token: Address) => {
    const info = await p.world.client
      .readContract({
        address: c.tokenManager2,
        abi: tokenManager2Abi,
        functionName: "_tokenInfos",
        args: [token],
      })
      .catch(() => undefined);
    return info !== undefined && info[12] !== 0n; // status: 0 while on the curve
  };
  const loop = (async () => {
    let next = Date.now();
    while (!stopped) {
      if (rate <= 0) {
        await new Promise((r) => setTimeout(r, 100));
        next = Date.now();
        continue;
      }
      next += 1000 / rate;
      if (inFlight > 20 + rate * 6) counts.skipped++;
      else {
        inFlight++;
        void one().finally(() => inFlight--);
      }
      await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
    }
    while (inFlight > 0) await new Promise((r) => setTimeout(r, 100));
  })();
  return {
    counts,
    mined,
    /**
     * Graduates `token` now with one buy past its raise from `whale` (as four.meme's top tokens
     * graduate in a day), so its trades from then on are DEX swaps. The graduating buy is left
     * out of `mined`: it is the curve's last trade and the pair's first liquidity at once.
     */
    graduate: async (token: Address, whale: LocalAccount) => {
      const raise = BigInt(p.world.record.params.maxRaising) * 2n;
      await p.world.send(whale, buyCall(c, token, raise, STORY_GAS.heavy));
      graduated.add(token);
      counts.graduated++;
    },
    setRate: (r: number) => {
      rate = r;
    },
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}
