import { createRoute, z } from "@hono/zod-openapi";
import { X_USERNAME, X_USERNAME_RULE } from "../../services/x/protocol.ts";
import { Address, AddressInput, AgentParams, dataResponses, IsoTime } from "../http/schemas.ts";
import { AGENT_NOT_FOUND } from "../middleware/agent-path/index.ts";

// Schemas of the agent dashboard: request bodies and responses. Money is an exact
// decimal string in USD; amounts are integer strings in the asset's smallest unit.

/** `T | null` for a named schema (`.nullable()` on a $ref generates a schema null fails). */
const orNull = <T extends z.ZodType>(t: T) => z.union([t, z.null()]);

export const UsdDecimal = z
  .string()
  .regex(/^-?[0-9]+(\.[0-9]+)?$/)
  .openapi({ example: "1234.5678", description: "exact decimal string (USD)" });

const HttpsUrl = z
  .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
  .max(2048, "must be at most 2048 characters");

export const Link = z.object({
  label: z.string().min(1).max(40),
  url: HttpsUrl,
});

export const PersonaBody = z
  .object({
    name: z.string().min(1).max(64),
    // The social poller asks X for it: a name X refuses would be asked for every round.
    handle: z.string().regex(X_USERNAME, `must be ${X_USERNAME_RULE}`).nullable().optional(),
    bio: z.string().max(2000).optional(),
    links: z.array(Link).max(10).optional(),
    imageUrl: HttpsUrl.nullable().optional(),
  })
  .strict()
  .openapi("PersonaInput");

export const Persona = z
  .object({
    name: z.string(),
    handle: z.string().nullable(),
    bio: z.string(),
    links: z.array(Link),
    imageUrl: z.string().nullable(),
    updatedAt: IsoTime,
  })
  .openapi("Persona");

export const AppBody = z
  .object({
    name: z.string().min(1).max(64),
    url: HttpsUrl,
    description: z.string().max(1000).optional(),
    revenueAddress: AddressInput.nullable().optional(),
    revenueShareBps: z.number().int().min(0).max(10_000).nullable().optional(),
  })
  .strict()
  .refine((a) => a.revenueShareBps == null || a.revenueAddress != null, {
    message: "revenueShareBps needs a revenueAddress",
    path: ["revenueShareBps"],
  })
  .openapi("AppInput");

export const AgentApp = z
  .object({
    appId: z.uuid(),
    name: z.string(),
    url: z.string(),
    description: z.string(),
    revenue: z.object({
      address: Address.nullable(),
      shareBps: z.number().int().nullable(),
    }),
    createdAt: IsoTime,
  })
  .openapi("AgentApp");

const BURN_KINDS = ["inference", "compute", "other"] as const;

export const BurnItemBody = z
  .object({
    provider: z.string().min(1).max(64),
    kind: z.enum(BURN_KINDS),
    monthlyUsd: z
      .string()
      .regex(/^[0-9]{1,14}(\.[0-9]{1,6})?$/, "must be a decimal string like 49.99")
      .optional(),
    usageBased: z.boolean().default(false),
    label: z.string().max(120).nullable().optional(),
  })
  .strict()
  .refine((i) => i.usageBased !== (i.monthlyUsd !== undefined), {
    message: "give monthlyUsd for a fixed item, or usageBased: true without it",
    path: ["monthlyUsd"],
  });

export const BurnConfigBody = z
  .object({ items: z.array(BurnItemBody).max(50) })
  .strict()
  .openapi("BurnConfigInput");

export const BurnItem = z
  .object({
    provider: z.string(),
    kind: z.enum(BURN_KINDS),
    monthlyUsd: UsdDecimal.nullable(),
    usageBased: z.boolean(),
    label: z.string().nullable(),
  })
  .openapi("BurnItem");

const WALLET_CHAINS = ["bsc", "arbitrum", "hyperliquid"] as const;

export const WalletBody = z
  .object({
    chain: z.enum(WALLET_CHAINS),
    address: AddressInput,
    role: z.enum(["perps", "treasury", "operations", "other"]),
    label: z.string().max(64).nullable().optional(),
  })
  .strict()
  .openapi("WalletInput");

export const RegisteredWallet = z
  .object({
    chain: z.enum(WALLET_CHAINS),
    address: Address,
    role: z.enum(["agent", "treasury", "perps", "operations", "other"]),
    label: z.string().nullable(),
    builtIn: z.boolean(),
  })
  .openapi("RegisteredWallet");

export const IdentityRecord = z
  .object({
    eip8004TokenId: z.string(),
    owner: Address,
    agentURI: z.string(),
    agentWallet: Address.nullable(),
    treasury: Address.nullable(),
    metadata: z.record(z.string(), z.string()),
    linkedBlock: z.string(),
  })
  .openapi("IdentityRecord");

export const PolicySnapshot = z
  .object({
    policyId: z.string(),
    version: z.number().int(),
    rules: z.record(z.string(), z.unknown()),
    createdAt: z.string(),
  })
  .openapi("PolicySnapshot");

/** What GET /v2/agents/{agent} adds to AgentDetail. */
export const DashboardDetailFields = {
  persona: orNull(Persona),
  apps: z.array(AgentApp),
  burnConfig: z.array(BurnItem),
  featured: z.boolean(),
  featuredCount: z.number().int().nonnegative(),
  wallets: z.array(RegisteredWallet),
  identity: orNull(IdentityRecord),
  policy: orNull(PolicySnapshot),
  policyStatus: z.enum(["active", "none", "unavailable"]).openapi({
    description: "`unavailable` when the signer did not answer (then `policy` is null)",
  }),
};

export const AssetHolding = z
  .object({
    asset: z.string(),
    chain: z.enum(WALLET_CHAINS),
    token: Address.nullable(),
    decimals: z.number().int(),
    amount: z.string().regex(/^[0-9]+$/),
    priceUsd: UsdDecimal.nullable(),
    valueUsd: UsdDecimal,
    priceSource: z.enum(["bnb_usd_feed", "spot", "last_trade", "stable", "none"]),
  })
  .openapi("AssetHolding");

export const SourceHoldings = z
  .object({
    status: z.enum(["ok", "not_connected", "unavailable"]),
    address: Address.nullable(),
    chain: z.enum(WALLET_CHAINS).nullable(),
    asOf: z.object({ block: z.string().nullable(), time: IsoTime.nullable() }),
    assets: z.array(AssetHolding),
    totalUsd: UsdDecimal,
    reason: z.string().optional(),
  })
  .openapi("SourceHoldings");

export const BnbUsd = z
  .object({ price: UsdDecimal, round: z.string(), updatedAt: IsoTime })
  .openapi("BnbUsd");

export const Holdings = z
  .object({
    asOf: z.object({ block: z.string(), time: IsoTime }),
    bnbUsd: orNull(BnbUsd),
    totalUsd: UsdDecimal,
    sources: z.object({
      agentSafe: SourceHoldings,
      hot: SourceHoldings,
      hyperliquid: SourceHoldings,
      aggregated: z.object({ assets: z.array(AssetHolding), totalUsd: UsdDecimal }),
    }),
  })
  .openapi("Holdings");

export const NavPoint = z
  .object({
    t: IsoTime,
    status: z.enum(["ok", "missing"]),
    navUsd: UsdDecimal.nullable(),
    block: z.string().nullable(),
    breakdown: z
      .object({ agentSafe: UsdDecimal, hot: UsdDecimal, hyperliquid: UsdDecimal })
      .nullable(),
    reason: z.string().nullable(),
  })
  .openapi("NavPoint");

export const BurnRate = z
  .object({
    windowDays: z.number().int(),
    since: IsoTime,
    items: z.array(
      BurnItem.extend({
        monthlyUsd: UsdDecimal,
        configured: z.boolean(),
        usageEvents: z.number().int().nullable(),
      }),
    ),
    monthlyUsd: UsdDecimal,
    treasuryUsd: UsdDecimal.openapi({
      description: "the treasury Safe's holdings in USD: what the runway is measured against",
    }),
    holdingsUsd: UsdDecimal.openapi({
      description: "everything the agent holds (Safe, hot wallet, perps venue) in USD",
    }),
    treasuryAsOf: z.object({ block: z.string(), time: IsoTime }),
    runwayDays: UsdDecimal.nullable().openapi({
      description: "days the treasury lasts at this burn, rounded down; null when nothing burns",
    }),
  })
  .openapi("BurnRate");

const Count = z.number().int().nonnegative();

export const PostEngagement = z
  .object({
    likeCount: Count,
    replyCount: Count,
    repostCount: Count,
    quoteCount: Count,
    impressionCount: Count.nullable().openapi({ description: "null when X gave none" }),
    countedAt: IsoTime.openapi({ description: "When the social poller read these counts" }),
  })
  .openapi("PostEngagement");

export const SocialPost = z
  .object({
    id: z.string(),
    text: z.string(),
    createdAt: IsoTime.nullable(),
    url: z.string(),
    engagement: orNull(PostEngagement).openapi({
      description: "X's public_metrics of the post as last polled; null before the first count",
    }),
  })
  .openapi("SocialPost");

export const SocialStats = z
  .object({
    followerCount: z.number().int().nullable(),
    posts: z.array(SocialPost),
    cachedAt: IsoTime.nullable(),
    asOf: IsoTime.nullable().openapi({
      description:
        'When the social poller last read X for this agent (null: never): how old every figure here is. The pollers share X\'s rate limits across agents and refresh watched agents first, so this can be minutes to hours old (AGENT.md "How old polled data is").',
    }),
  })
  .openapi("SocialStats");

export const FollowerPoint = z
  .object({
    hour: IsoTime,
    followerCount: Count,
    polledAt: IsoTime.openapi({ description: "The poll whose count this is: the hour's last" }),
  })
  .openapi("FollowerPoint");

export const WalletWithBalances = RegisteredWallet.extend({
  balances: orNull(SourceHoldings),
}).openapi("WalletWithBalances");

/**
 * A read of one agent's dashboard, `GET /v2/agents/{agent}<path>` with agentPath's 404; `answer`
 * describes its 200 (the summary unless given).
 */
export const dashboardRead = <T extends z.ZodType>(
  path: string,
  summary: string,
  data: T,
  description?: string,
  answer = summary,
) =>
  createRoute({
    method: "get",
    path: `/v2/agents/{agent}${path}`,
    tags: ["dashboard"],
    summary,
    description,
    request: { params: AgentParams },
    responses: dataResponses(answer, data, AGENT_NOT_FOUND),
  });
