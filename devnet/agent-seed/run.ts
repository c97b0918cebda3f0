import type { Hex } from "viem";
import { seedArbitrum } from "../arbitrum-seed.ts";
import type { SeedAgent } from "./agent.ts";
import { seedPerps, venueStandIn } from "./perps.ts";
import { seedSafe } from "./safe.ts";
import { seedSocial } from "./social.ts";

type Address = `0x${string}`;

/**
 * The local stand-ins `devnet seed` drives, as URLs the CLI hands in (devnet/ loads nothing of
 * services/). One left unset is a real service: the seed leaves it alone.
 */
export type SeedServices = {
  /** The API: the seed launches its agent through it when none was launched. */
  apiUrl: string;
  /** An image the launch accepts (the launchpad stand-in's sample). */
  sampleImageUrl: string;
  hyperliquidUrl?: string;
  safeTxServiceUrl?: string;
  xApiUrl?: string;
};

/** What the seed did for its agent. */
export type SeedAgentReport = {
  agentId: string;
  token: Address;
  handle: string;
  perps: Address;
  /** The Arbitrum address that sent USDC to the bridge, if there is an Arbitrum chain. */
  bridged?: Address;
  fills: number;
  safeTxHash?: Hex;
  followers?: number;
  posts: string[];
};

/**
 * One agent with everything, on the devnet's chains and the local stand-ins: USDC on Arbitrum
 * from its perps account to the venue's bridge (credited by the venue as a deposit), fills
 * with opens and closes on the venue, a treasury Safe transaction proposed, confirmed and
 * executed, and posts on X. Each step makes new ids, so a second run adds to the first.
 */
export async function seedAgentActivity(p: {
  agent: SeedAgent;
  services: SeedServices;
  rpcUrl: string;
  chainId: number;
  dataDir: string;
  log: (line: string) => void;
}): Promise<SeedAgentReport> {
  const { agent, services: s, log } = p;
  const venue = s.hyperliquidUrl ? venueStandIn(s.hyperliquidUrl) : undefined;
  const depositsBefore = await venue?.deposits(agent.perps);
  const bridged = await seedArbitrum({ dataDir: p.dataDir, address: agent.perps, log });
  const fills = s.hyperliquidUrl
    ? await seedPerps({
        url: s.hyperliquidUrl,
        user: agent.perps,
        depositsBefore: bridged ? depositsBefore : undefined,
        log,
      })
    : 0;
  const safeTxHash = s.safeTxServiceUrl
    ? await seedSafe({
        rpcUrl: p.rpcUrl,
        chainId: p.chainId,
        serviceUrl: s.safeTxServiceUrl,
        safe: agent.treasury,
        payee: agent.wallet,
        log,
      })
    : undefined;
  const social = s.xApiUrl
    ? await seedSocial({
        xApiUrl: s.xApiUrl,
        handle: agent.handle,
        name: agent.name,
        ticker: agent.ticker,
        log,
      })
    : undefined;
  return {
    agentId: agent.agentId,
    token: agent.token,
    handle: agent.handle,
    perps: agent.perps,
    bridged,
    fills,
    safeTxHash,
    followers: social?.followers,
    posts: social?.posts ?? [],
  };
}
