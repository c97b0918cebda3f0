import type { Address } from "viem";
import {
  type RunStorylineParameters,
  type RunStorylineReturnType,
  runStoryline,
} from "../../devnet/storyline/run.ts";
import { lateRegisteredToken } from "./late-registration.ts";

export type RunScenarioParameters = Pick<RunStorylineParameters, "rpcUrl" | "record"> &
  Partial<Pick<RunStorylineParameters, "seed" | "tokens" | "trades" | "dexSwaps" | "log">>;

export type RunScenarioReturnType = RunStorylineReturnType & {
  /** Created on TokenManager2 without registration: must leave no row. */
  unregistered: Address;
  /** Registered blocks after its creation, traded before (test/helpers/late-registration.ts). */
  late: Address;
};

/** The BNB/USD answer the scenario ends with (8 decimals). */
const SCENARIO_BNB_USD = 612_50000000n;

/**
 * The devnet storyline (devnet/storyline/) made deterministic for the indexer (automine): one
 * transaction at a time from seeded wallets, plus one token created without registration, one
 * registered blocks after its creation, and a BNB/USD update.
 */
export async function runScenario(p: RunScenarioParameters): Promise<RunScenarioReturnType> {
  const story = await runStoryline({
    rpcUrl: p.rpcUrl,
    record: p.record,
    seed: p.seed ?? 1,
    tokens: p.tokens ?? 3,
    trades: p.trades ?? 300,
    traders: 6,
    dexSwaps: p.dexSwaps ?? 12,
    parallel: false,
    safeTreasury: false,
    unregistered: true,
    bnbUsdAnswer: SCENARIO_BNB_USD,
    log: p.log,
  });
  if (!story.unregistered) throw new Error("the storyline made no unregistered token");
  const late = await lateRegisteredToken({ rpcUrl: p.rpcUrl, record: p.record, seed: p.seed ?? 1 });
  return { ...story, unregistered: story.unregistered, late };
}
