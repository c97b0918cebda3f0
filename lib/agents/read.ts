import type { Sql } from "../db/client.ts";
import { DASHBOARD_LIMITS } from "../limits.ts";
import { type Dec, divDown, parseDec, sum, toDecString } from "./decimal.ts";

/** The agent an `/v2/agents/{agent}` path names, from `app.agents`. */
export type DashboardAgent = {
  agentId: string;
  /** Null until the agent's launch has a token. */
  tokenAddress: string | null;
  walletAddress: string | null;
  treasuryAddress: string | null;
  eip8004TokenId: string | null;
  featured: boolean;
  /** The steward wallet id, for the policy snapshot. */
  walletId: string | null;
  launchedAt: Date | null;
};

/** How a path names an agent: its token address (lowercase) or its agent id. */
export type AgentRef = { tokenAddress: string } | { agentId: string };

/**
 * The agent `ref` names, from `app.agents`, or undefined.
 *
 * @example
 * const agent = await findAgent(sql, { tokenAddress: "0xabc…" });
 */
export async function findAgent(sql: Sql, ref: AgentRef): Promise<DashboardAgent | undefined> {
  const where =
    "agentId" in ref
      ? sql`a.agent_id = ${ref.agentId}`
      : sql`a.token_address = ${ref.tokenAddress}`;
  const [r] = await sql<
    {
      agent_id: string;
      token_address: string | null;
      wallet_address: string | null;
      treasury_address: string | null;
      eip8004_token_id: string | null;
      featured: boolean;
      wallet_id: string | null;
      launched_at: Date | null;
    }[]
  >`select a.agent_id, a.token_address, a.wallet_address, a.treasury_address,
      a.eip8004_token_id::text, a.featured, s.wallet_id, a.launched_at
    from app.agents a left join app.launch_sagas s on s.agent_id = a.agent_id
    where ${where}`;
  if (!r) return undefined;
  return {
    agentId: r.agent_id,
    tokenAddress: r.token_address,
    walletAddress: r.wallet_address,
    treasuryAddress: r.treasury_address,
    eip8004TokenId: r.eip8004_token_id,
    featured: r.featured,
    walletId: r.wallet_id,
    launchedAt: r.launched_at,
  };
}

export type RegisteredWallet = {
  chain: "bsc" | "arbitrum" | "hyperliquid";
  address: string;
  role: "agent" | "treasury" | "perps" | "operations" | "other";
  label: string | null;
  /** true for the wallets the launch made (steward wallet, treasury Safe): not removable. */
  builtIn: boolean;
};

/** The launch-made wallets first, then the registered ones in registration order. */
export async function walletInventory(sql: Sql, a: DashboardAgent): Promise<RegisteredWallet[]> {
  const rows = await sql<{ chain: string; address: string; role: string; label: string | null }[]>`
    select chain, address, role, label from app.agent_wallets
    where agent_id = ${a.agentId} order by created_at, chain, address`;
  const builtIn: RegisteredWallet[] = [];
  if (a.walletAddress) {
    builtIn.push({
      chain: "bsc",
      address: a.walletAddress,
      role: "agent",
      label: "steward wallet",
      builtIn: true,
    });
  }
  if (a.treasuryAddress) {
    builtIn.push({
      chain: "bsc",
      address: a.treasuryAddress,
      role: "treasury",
      label: "treasury Safe",
      builtIn: true,
    });
  }
  return [...builtIn, ...rows.map((r) => ({ ...r, builtIn: false }) as RegisteredWallet)];
}

/**
 * The agent's own dashboard records: persona, apps, burn config, featuring counter.
 *
 * @example
 * const { persona, apps, burnConfig, featuredCount } = await dashboardRecords(sql, agentId);
 */
export async function dashboardRecords(sql: Sql, agentId: string) {
  const [persona, apps, burn, [count]] = await Promise.all([
    sql<
      {
        name: string;
        handle: string | null;
        bio: string;
        links: { label: string; url: string }[];
        image_url: string | null;
        updated_at: Date;
      }[]
    >`select name, handle, bio, links, image_url, updated_at from app.agent_personas
      where agent_id = ${agentId}`,
    sql<
      {
        app_id: string;
        name: string;
        url: string;
        description: string;
        revenue_address: string | null;
        revenue_share_bps: number | null;
        created_at: Date;
      }[]
    >`select app_id, name, url, description, revenue_address, revenue_share_bps, created_at
      from app.agent_apps where agent_id = ${agentId} order by created_at, app_id`,
    burnItems(sql, agentId),
    sql<{ n: number }[]>`select count(*)::int as n from app.agent_featurings
      where agent_id = ${agentId}`,
  ]);
  const p = persona[0];
  return {
    persona: p
      ? {
          name: p.name,
          handle: p.handle,
          bio: p.bio,
          links: p.links,
          imageUrl: p.image_url,
          updatedAt: p.updated_at.toISOString(),
        }
      : null,
    apps: apps.map((r) => ({
      appId: r.app_id,
      name: r.name,
      url: r.url,
      description: r.description,
      revenue: { address: r.revenue_address, shareBps: r.revenue_share_bps },
      createdAt: r.created_at.toISOString(),
    })),
    burnConfig: burn,
    featuredCount: count?.n ?? 0,
  };
}

export type BurnItem = {
  provider: string;
  kind: "inference" | "compute" | "other";
  monthlyUsd: string | null;
  usageBased: boolean;
  label: string | null;
};

async function burnItems(sql: Sql, agentId: string): Promise<BurnItem[]> {
  const rows = await sql<
    {
      provider: string;
      kind: BurnItem["kind"];
      monthly_usd: string | null;
      usage_based: boolean;
      label: string | null;
    }[]
  >`select provider, kind, monthly_usd::text, usage_based, label from app.agent_burn_items
    where agent_id = ${agentId} order by position`;
  return rows.map((r) => ({
    provider: r.provider,
    kind: r.kind,
    monthlyUsd: r.monthly_usd === null ? null : toDecString(parseDec(r.monthly_usd)),
    usageBased: r.usage_based,
    label: r.label,
  }));
}

const BURN_WINDOW_DAYS = DASHBOARD_LIMITS.burnWindowDays;
/** An `inference.spent` usd amount: a plain decimal string (docs/events.md). */
const USD_PATTERN = "^[0-9]{1,20}(\\.[0-9]{1,18})?$";
const RUNWAY_PLACES = DASHBOARD_LIMITS.runwayPlaces;

/**
 * Burn rate: configured monthly items, usage-based items from the last 30 days of
 * `inference.spent` events (per provider; providers seen but not configured are listed too),
 * the monthly total, and the runway of `treasuryUsd` at that rate (null when nothing burns).
 *
 * @example
 * const b = await burnRate(sql, agentId, parseDec("1200"), new Date());
 */
export async function burnRate(sql: Sql, agentId: string, treasuryUsd: Dec, now: Date) {
  const since = new Date(now.getTime() - BURN_WINDOW_DAYS * 86_400_000);
  const [items, usage] = await Promise.all([
    burnItems(sql, agentId),
    // usd is a decimal string by contract (docs/events.md); a malformed one is not counted.
    // A roll-up row (jobs/events/rollup.ts) carries its sums per provider in `byProvider`; a
    // pre-formed event carries one `provider` and `usd`.
    sql<{ provider: string; usd: string; events: number }[]>`
      select p.provider, sum(p.usd::numeric)::text as usd, count(*)::int as events
      from app.agent_events e
      cross join lateral (
        select key as provider, value as usd from jsonb_each_text(
          case when jsonb_typeof(e.data->'byProvider') = 'object' then e.data->'byProvider' else '{}' end)
        union all
        select e.data->>'provider', e.data->>'usd'
        where jsonb_typeof(e.data->'byProvider') is distinct from 'object'
          and jsonb_typeof(e.data->'usd') = 'string'
      ) p
      where e.agent_id = ${agentId} and e.event_type = 'inference.spent'
        and e.occurred_at > ${since} and e.occurred_at <= ${now}
        and p.usd ~ ${USD_PATTERN} and p.provider is not null
      group by 1 order by 1`,
  ]);
  const used = new Map(usage.map((u) => [u.provider, u]));
  const lines = items.map((i) => {
    const u = i.usageBased ? used.get(i.provider) : undefined;
    if (i.usageBased) used.delete(i.provider);
    const monthly = i.usageBased ? parseDec(u?.usd ?? "0") : parseDec(i.monthlyUsd ?? "0");
    return {
      ...i,
      configured: true,
      monthlyUsd: toDecString(monthly),
      usageEvents: i.usageBased ? (u?.events ?? 0) : null,
      value: monthly,
    };
  });
  for (const u of used.values()) {
    const monthly = parseDec(u.usd);
    lines.push({
      provider: u.provider,
      kind: "inference",
      monthlyUsd: toDecString(monthly),
      usageBased: true,
      label: null,
      configured: false,
      usageEvents: u.events,
      value: monthly,
    });
  }
  const total = sum(lines.map((l) => l.value));
  const runway =
    total.v === 0n
      ? null
      : divDown({ v: treasuryUsd.v * 30n, s: treasuryUsd.s }, total, RUNWAY_PLACES);
  return {
    windowDays: BURN_WINDOW_DAYS,
    since: since.toISOString(),
    items: lines.map(({ value: _, ...l }) => l),
    monthlyUsd: toDecString(total),
    runwayDays: runway === null ? null : toDecString(runway),
  };
}
