import { createPublicClient, http } from "viem";
import { seedArbitrum } from "./arbitrum-seed.ts";
import { isLive } from "./deploy.ts";
import { launchedTokens } from "./launched-agents.ts";
import { readDeploymentRecord } from "./record.ts";
import { type RunStorylineReturnType, runStoryline } from "./storyline/run.ts";

export type SeedDevnetParameters = {
  rpcUrl: string;
  dataDir: string;
  /** Curve tokens to create (default 5; the first one graduates). */
  tokens?: number;
  /** Random curve trades and transfers across the non-graduating tokens (default 100). */
  trades?: number;
  log?: (msg: string) => void;
};

export type SeedDevnetReturnType = RunStorylineReturnType;

/** Parallel traders, as many wallets act at once on a live devnet. */
const SEED_TRADERS = 10;
const SEED_DEX_SWAPS = 3;

/**
 * Creates sample activity on a deployed devnet through the public interfaces only: the devnet
 * storyline (devnet/storyline/) with a fresh seed, its wallets acting in parallel so it works
 * with automine and with interval mining.
 *
 * @example
 * await seedDevnet({ rpcUrl: "http://127.0.0.1:8545", dataDir: ".launchpad", tokens: 5, trades: 100 });
 */
export async function seedDevnet(p: SeedDevnetParameters): Promise<SeedDevnetReturnType> {
  const record = readDeploymentRecord(p.dataDir);
  const client = createPublicClient({ transport: http(p.rpcUrl) });
  if (!record || !(await isLive(client, record))) {
    throw new Error("no live devnet deployment to seed", {
      cause: new Error(`deploy first (start the devnet); data dir ${p.dataDir}`),
    });
  }
  // The agents launched through the API trade too, so their pages come alive with the rest.
  const launched = await launchedTokens(p.dataDir).catch((error: unknown) => {
    p.log?.(
      `could not read the launched agents (${String(error)}): trading the story's tokens only`,
    );
    return [];
  });
  const story = await runStoryline({
    rpcUrl: p.rpcUrl,
    record,
    // A new story each run: fresh wallets and request ids on a devnet that was seeded before.
    seed: Date.now(),
    tokens: p.tokens ?? 5,
    trades: Math.max(0, p.trades ?? 100),
    traders: SEED_TRADERS,
    dexSwaps: SEED_DEX_SWAPS,
    parallel: true,
    safeTreasury: true,
    unregistered: false,
    alsoTrade: launched,
    log: p.log,
  });
  if (launched.length > 0)
    p.log?.(`traded the launched agents' tokens too: ${launched.join(", ")}`);
  await seedArbitrum({ dataDir: p.dataDir, log: p.log });
  return story;
}
