import type { OpenAPIHono, z } from "@hono/zod-openapi";
import { type ChainReader, createChainReader } from "../../lib/agents/chain-reader.ts";
import { type DashboardAgent, dashboardRecords, walletInventory } from "../../lib/agents/read.ts";
import type { Sql } from "../../lib/db/client.ts";
import { isMissingRelation } from "../../lib/db/views.ts";
import type { AppEnv } from "../env.ts";
import type { ReadDeps } from "../http/read-deps.ts";
import type { ApiSettings } from "../settings.ts";
import { registerAgents } from "./agents.ts";
import { registerDashboardReads } from "./reads.ts";
import type { IdentityRecord } from "./schemas.ts";
import { registerSocialReads } from "./social.ts";
import { registerDashboardWrites } from "./writes.ts";

/** The signer's active policy of a steward wallet; null when it has none. Throws when down. */
export type PolicyReader = (walletId: string) => Promise<{
  policyId: string;
  version: number;
  rules: Record<string, unknown>;
  createdAt: string;
} | null>;

/** What the dashboard needs from outside the database (both optional in read-only tests). */
export type DashboardFeatures = { chain?: ChainReader; policy?: PolicyReader };

export type DashboardDeps = {
  sql: Sql;
  settings: ApiSettings;
  reads: ReadDeps;
  adminToken?: string;
  features?: DashboardFeatures;
};

/** The agent's ERC-8004 identity as the index holds it, named as the API answers it. */
async function identityRecord(sql: Sql, schema: string, id: string | null) {
  if (id === null) return null;
  try {
    const [r] = await sql<z.infer<typeof IdentityRecord>[]>`select
        agent_id::text as "eip8004TokenId", owner, agent_uri as "agentURI",
        agent_wallet as "agentWallet", treasury, metadata, linked_block::text as "linkedBlock"
      from ${sql(schema)}.identity where agent_id = ${id}`;
    return r ?? null;
  } catch (error) {
    if (isMissingRelation(error)) return null; // not indexed yet
    throw error;
  }
}

/**
 * Registers the dashboard writes and reads, and the agents directory with what the dashboard
 * adds to AgentDetail (GET /v2/agents/{agent}).
 */
export function registerDashboard(app: OpenAPIHono<AppEnv>, d: DashboardDeps) {
  const rpc = d.settings.rpcUrls[0];
  const chain = d.features?.chain ?? (rpc ? createChainReader(rpc) : undefined);
  registerDashboardWrites(app, { sql: d.sql, adminToken: d.adminToken });
  registerDashboardReads(app, { sql: d.sql, settings: d.settings, chain });
  registerSocialReads(app, { sql: d.sql, reads: d.reads });

  const detail = async (a: DashboardAgent) => {
    const [records, wallets, identity, policy] = await Promise.all([
      dashboardRecords(d.sql, a.agentId),
      walletInventory(d.sql, a),
      identityRecord(d.sql, d.settings.viewsSchema, a.eip8004TokenId),
      policyOf(d.features?.policy, a.walletId),
    ]);
    return { ...records, featured: a.featured, wallets, identity, ...policy };
  };
  registerAgents(app, { sql: d.sql, settings: d.settings, reads: d.reads, detail });
  return { detail };
}

async function policyOf(reader: PolicyReader | undefined, walletId: string | null) {
  if (!walletId) return { policy: null, policyStatus: "none" as const };
  if (!reader) return { policy: null, policyStatus: "unavailable" as const };
  try {
    const policy = await reader(walletId);
    return { policy, policyStatus: policy ? ("active" as const) : ("none" as const) };
  } catch {
    // The signer is down or slow: the page still renders, and says the snapshot is missing.
    return { policy: null, policyStatus: "unavailable" as const };
  }
}

export type DashboardDetail = NonNullable<
  Awaited<ReturnType<ReturnType<typeof registerDashboard>["detail"]>>
>;
