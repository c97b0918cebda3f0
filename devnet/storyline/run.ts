import { type Address, type LocalAccount, parseEther } from "viem";
import type { DeploymentRecord } from "../record.ts";
import { feedAnswerCall, fundCall } from "./calls.ts";
import { depositLaunches } from "./deposits.ts";
import { createServiceTokens } from "./tokens.ts";
import { curveTrades, graduate } from "./trades.ts";
import { storyWorld } from "./world.ts";

export type RunStorylineParameters = {
  rpcUrl: string;
  record: DeploymentRecord;
  /** Seeds the PRNG, the wallets' keys and the request ids: the same seed, the same story. */
  seed: number;
  /** Service tokens (the first one graduates). */
  tokens: number;
  /** Random curve trades and transfers across the other tokens. */
  trades: number;
  traders: number;
  /** DEX swaps on the graduated token's pair. */
  dexSwaps: number;
  /**
   * Parallel: independent wallets act at once (interval mining, sample data; a refused trade is
   * counted). Sequential: one transaction at a time, every failure throws (deterministic).
   */
  parallel: boolean;
  /** A 1-of-1 Safe per creator as treasury (as the launch saga makes), else a plain wallet. */
  safeTreasury: boolean;
  /** Also create one token on TokenManager2 without registering it (the index must skip it). */
  unregistered: boolean;
  /** A BNB/USD answer (8 decimals) the feed updater pushes at the end, if any. */
  bnbUsdAnswer?: bigint;
  /** Tokens made elsewhere (agents launched through the API) that the curve trades include. */
  alsoTrade?: Address[];
  log?: (msg: string) => void;
};

export type RunStorylineReturnType = {
  /** The registered service tokens; the first one graduated. */
  tokens: Address[];
  graduatedToken: Address;
  /** The token created without registration, when asked for. */
  unregistered?: Address;
  trades: number;
  refusedTrades: number;
  launchedVault: Address;
  refundedVault: Address;
};

/**
 * The devnet storyline, written once: fresh wallets funded by the deployer, service tokens
 * created as the launch saga does, random curve trades and transfers, a graduation and DEX
 * swaps, a deposit launch to claims and one to refunds. `devnet seed` runs it in parallel with
 * a fresh seed; the indexer tests run it sequentially with a fixed seed and check the index.
 *
 * @example
 * const story = await runStoryline({ rpcUrl, record, seed: 7, tokens: 3, trades: 300, traders: 6,
 *   dexSwaps: 12, parallel: false, safeTreasury: false, unregistered: true });
 */
export async function runStoryline(p: RunStorylineParameters): Promise<RunStorylineReturnType> {
  const log = p.log ?? (() => {});
  const world = storyWorld({ rpcUrl: p.rpcUrl, record: p.record, seed: p.seed });
  const wallets = (role: string, n: number) =>
    Array.from({ length: n }, (_, i) => world.account(`${role}${i}`));
  const tokenCount = Math.max(1, p.tokens);
  const creators = wallets("creator", tokenCount + (p.unregistered ? 1 : 0));
  const traders = wallets("trader", Math.max(1, p.traders));
  const depositors = wallets("depositor", 4);
  const whale = world.account("whale");
  const maxRaising = BigInt(p.record.params.maxRaising);
  const funding: [LocalAccount, bigint][] = [
    ...creators.map((a) => [a, parseEther("2")] as [LocalAccount, bigint]),
    ...traders.map((a) => [a, parseEther("50")] as [LocalAccount, bigint]),
    [whale, maxRaising * 2n + parseEther("5")],
    ...depositors.map((a) => [a, parseEther("10")] as [LocalAccount, bigint]),
  ];
  // Consecutive deployer nonces: with interval mining all of it lands in one block.
  await Promise.all(
    funding.map(([a, v]) => world.send(world.roles.deployer, fundCall(a.address, v))),
  );
  log(`funded ${funding.length} fresh wallets`);

  const made = await createServiceTokens(world, {
    creators: creators.map((account, i) => ({ account, register: i < tokenCount })),
    seed: p.seed,
    safeTreasury: p.safeTreasury,
    parallel: p.parallel,
    name: (i) => ({ name: `Story Agent ${i + 1}`, symbol: `STORY${i + 1}` }),
  });
  const tokens = made.slice(0, tokenCount);
  const unregistered = p.unregistered ? made[tokenCount] : undefined;
  log(
    `created ${tokens.length} service tokens${unregistered ? " and one unregistered token" : ""}`,
  );

  const graduated = tokens[0] as Address;
  const curve = tokens.length > 1 ? tokens.slice(1) : tokens;
  const trades = await curveTrades(world, {
    traders,
    tokens: [...curve, ...(unregistered ? [unregistered] : []), ...(p.alsoTrade ?? [])],
    // Now and then into an agent's wallet (the first creator's).
    recipients: [creators[0] as LocalAccount, ...traders].map((a) => a.address),
    count: p.trades,
    parallel: p.parallel,
    log,
  });
  log(`made ${trades.made} curve trades and transfers (${trades.refused} refused)`);

  await graduate(world, { whale, token: graduated, traders, swaps: p.dexSwaps });
  log(`graduated ${graduated} and made ${p.dexSwaps} DEX swaps`);

  const vaults = await depositLaunches(world, {
    creator: creators[0] as LocalAccount,
    depositors,
    parallel: p.parallel,
  });
  log(
    `deposit launch ${vaults.launchedVault} launched and claimed; ${vaults.refundedVault} refunded`,
  );

  if (p.bnbUsdAnswer !== undefined) {
    await world.send(world.roles.feedUpdater, feedAnswerCall(p.record.contracts, p.bnbUsdAnswer));
  }
  return {
    tokens,
    graduatedToken: graduated,
    unregistered,
    trades: trades.made,
    refusedTrades: trades.refused,
    ...vaults,
  };
}
