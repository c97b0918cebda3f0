import { createPublicClient, http } from "viem";
import { seedAgent } from "./agent-seed/agent.ts";
import { type SeedAgentReport, type SeedServices, seedAgentActivity } from "./agent-seed/run.ts";
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
  /**
   * The API and the local stand-ins (perps venue, Safe Transaction Service, X): with them, one
   * agent gets everything (devnet/agent-seed/). Without, chain activity only.
   */
  services?: SeedServices;
};

export type SeedDevnetReturnType = RunStorylineReturnType & { agent?: SeedAgentReport };

/** Parallel traders, as many wallets act at once on a live devnet. */
const SEED_TRADERS = 10;
const SEED_DEX_SWAPS = 3;

/**
 * Creates sample activity on a deployed devnet through the public interfaces only: the devnet
 * storyline (devnet/storyline/) with a fresh seed, its wallets acting in parallel so it works
 * with automine and with interval mining. With `services`, one agent (the newest launched
 * through the API, or one the seed launches) also gets perps fills, a treasury Safe
 * transaction, posts and a USDC deposit from Arbitrum (devnet/agent-seed/, docs/pollers.md).
 */
export async function seedDevnet(p: SeedDevnetParameters): Promise<SeedDevnetReturnType> {
  const record = readDeploymentRecord(p.dataDir);
  const client = createPublicClient({ transport: http(p.rpcUrl) });
  if (!record || !(await isLive(client, record))) {
    throw new Error("no live devnet deployment to seed", {
      cause: new Error(`deploy first (start the devnet); data dir ${p.dataDir}`),
    });
  }
  const log = p.log ?? (() => {});
  // First the agent that gets everything: launched through the API if none was, so the
  // storyline's trades reach its token too.
  const agent = p.services
    ? await seedAgent({
        dataDir: p.dataDir,
        apiUrl: p.services.apiUrl,
        sampleImageUrl: p.services.sampleImageUrl,
        log,
      })
    : undefined;
  // The agents launched through the API trade too, so their pages come alive with the rest.
  const launched = await launchedTokens(p.dataDir).catch((error: unknown) => {
    log(`could not read the launched agents (${String(error)}): trading the story's tokens only`);
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
    log,
  });
  if (launched.length > 0) log(`traded the launched agents' tokens too: ${launched.join(", ")}`);
  if (!agent || !p.services) {
    await seedArbitrum({ dataDir: p.dataDir, log });
    return story;
  }
  const report = await seedAgentActivity({
    agent,
    services: p.services,
    rpcUrl: p.rpcUrl,
    chainId: record.chainId,
    dataDir: p.dataDir,
    log,
  });
  return { ...story, agent: report };
}
