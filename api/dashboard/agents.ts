import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { parseDec, toDecString } from "../../lib/agents/decimal.ts";
import type { DashboardAgent } from "../../lib/agents/read.ts";
import type { Sql } from "../../lib/db/client.ts";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";
import { cachedResponses, REVALIDATE, sendCached } from "../http/read-cache.ts";
import type { ReadDeps } from "../http/read-deps.ts";
import {
  Address,
  AgentParams,
  atIndexedBlock,
  dataResponses,
  flagQuery,
  IsoTime,
  OffsetQuery,
  offsetList,
  oneOf,
} from "../http/schemas.ts";
import { readViews } from "../http/views.ts";
import { AGENT_NOT_FOUND, agentOf, agentPath } from "../middleware/agent-path/index.ts";
import type { ApiSettings } from "../settings.ts";
import {
  AGENT_SORTS,
  AGENT_STATUS,
  type AgentRow,
  countAgents,
  selectAgents,
} from "./agent-query.ts";
import { AgentFirstBuy, readFirstBuy } from "./first-buy.ts";
import { DashboardDetailFields, UsdDecimal } from "./schemas.ts";
import { readTaxIncome, TaxIncome } from "./tax-income.ts";

export const AgentSummary = z
  .object({
    agentId: z.string(),
    name: z.string(),
    ticker: z.string(),
    tokenAddress: Address,
    status: z.enum(AGENT_STATUS),
    agentPageUrl: z.url(),
    launchedAt: IsoTime.nullable(),
    ageSeconds: z.number().int().nonnegative().nullable().openapi({
      description: "Seconds since launchedAt, at the server's clock when the answer was read",
    }),
    treasuryUsd: UsdDecimal.nullable().openapi({
      description: "The treasury Safe's holdings in USD, as of `runwayAsOf` (null before valued)",
    }),
    monthlyBurnUsd: UsdDecimal.nullable().openapi({
      description: "Monthly burn (GET /v2/agents/{agent}/burn-rate's `monthlyUsd`) at that time",
    }),
    runwayDays: UsdDecimal.nullable().openapi({
      description:
        "treasuryUsd / monthlyBurnUsd × 30, rounded down as on /burn-rate; null when nothing burns or before valued",
    }),
    runwayAsOf: z
      .object({ block: z.string().regex(/^[0-9]+$/), time: IsoTime })
      .nullable()
      .openapi({
        description:
          "The indexed block the treasury was valued at and when: the NAV snapshot job values every agent each minute",
      }),
  })
  .openapi("AgentSummary");

export const AgentDetail = AgentSummary.extend({
  description: z.string(),
  imageUrl: z.url(),
  walletAddress: Address.nullable(),
  treasuryAddress: Address.nullable(),
  eip8004TokenId: z.string().nullable(),
  launchpadUrl: z.url(),
  taxIncome: TaxIncome.nullable(),
  firstBuy: AgentFirstBuy.nullable(),
  ...DashboardDetailFields,
}).openapi("AgentDetail");

const listRoute = createRoute({
  method: "get",
  path: "/v2/agents",
  tags: ["agents"],
  summary: "Agents launched through the service, with their runway; sortable",
  description:
    "Only agents that have a token address are listed. `status` is `pending` until the indexer has the token, then `active`, `graduated` once it trades on the DEX; `failed` launches keep that status.",
  request: {
    query: OffsetQuery.extend({
      sort: oneOf(AGENT_SORTS).default("launchedAt").openapi({
        description:
          "`launchedAt` (newest first when desc), `age` (oldest first when desc), `name`, `ticker`, `treasuryUsd`, `monthlyBurnUsd`, `runwayDays`. Agents without the figure come last in either order; ties by agentId.",
      }),
      order: z
        .enum(["desc", "asc"], { error: "must be desc or asc" })
        .default("desc")
        .openapi({ description: "desc (largest, newest or oldest for `age`) or asc" }),
      status: oneOf(AGENT_STATUS).optional(),
      featured: flagQuery("true selects the featured agent; false every other one"),
    }),
  },
  responses: cachedResponses("A page of agents", atIndexedBlock(offsetList(AgentSummary))),
});

const detailRoute = createRoute({
  method: "get",
  path: "/v2/agents/{agent}",
  tags: ["agents"],
  summary: "One agent, by its token address",
  request: { params: AgentParams },
  responses: dataResponses("The agent", AgentDetail, AGENT_NOT_FOUND),
});

const usdOrNull = (v: string | null) => (v === null ? null : toDecString(parseDec(v)));

function summary(r: AgentRow, s: ApiSettings, now: number) {
  return {
    agentId: r.agent_id,
    name: r.name,
    ticker: r.ticker,
    tokenAddress: r.token_address,
    status: r.status,
    agentPageUrl: `${s.webUrl}/agent/${r.token_address}`,
    launchedAt: r.launched_at?.toISOString() ?? null,
    ageSeconds: r.launched_at
      ? Math.max(0, Math.floor((now - r.launched_at.getTime()) / 1000))
      : null,
    treasuryUsd: usdOrNull(r.treasury_usd),
    monthlyBurnUsd: usdOrNull(r.monthly_burn_usd),
    runwayDays: usdOrNull(r.runway_days),
    runwayAsOf:
      r.runway_block !== null && r.runway_at
        ? { block: r.runway_block, time: r.runway_at.toISOString() }
        : null,
  };
}

export type AgentRouteDeps = {
  sql: Sql;
  settings: ApiSettings;
  /** The list is cached per indexed generation (app.agents writes move it: migration 015). */
  reads: ReadDeps;
  /** The dashboard's part of AgentDetail (persona, apps, wallets, identity, policy…). */
  detail: (agent: DashboardAgent) => Promise<z.infer<z.ZodObject<typeof DashboardDetailFields>>>;
};

/** `GET /v2/agents` and `GET /v2/agents/{agent}`, from `app.agents` and the token views. */
export function registerAgents(app: OpenAPIHono<AppEnv>, d: AgentRouteDeps) {
  const schema = d.settings.viewsSchema;
  app.openapi(listRoute, async (c) => {
    const q = c.req.valid("query");
    const state = await d.reads.tracker.current();
    const read = async () => {
      const [rows, total] = await Promise.all([
        selectAgents(d.sql, schema, q),
        countAgents(d.sql, schema, q),
      ]);
      const now = Date.now();
      return {
        ok: true as const,
        data: {
          items: rows.map((r) => summary(r, d.settings, now)),
          total,
          limit: q.limit,
          offset: q.offset,
          indexedBlock: state.block,
        },
      };
    };
    return sendCached(c, await d.reads.cache.get(c.req.url, state, read), REVALIDATE) as never;
  });
  app.openapi({ ...detailRoute, middleware: [agentPath({ sql: d.sql })] }, async (c) => {
    const agent = agentOf(c);
    const [r] = agent.tokenAddress
      ? await selectAgents(d.sql, schema, { token: agent.tokenAddress, limit: 1, offset: 0 })
      : [];
    if (!r) throw new HttpError("not_found", { message: `no agent ${agent.agentId} has a token` });
    const wallets = [r.treasury_address, r.wallet_address].filter((w) => w !== null);
    const [extra, taxIncome, firstBuy] = await Promise.all([
      d.detail(agent),
      readViews(() => readTaxIncome(d.sql, schema, wallets)),
      readFirstBuy(d.sql, schema, r.token_address),
    ]);
    return c.json(
      {
        ok: true as const,
        data: {
          ...summary(r, d.settings, Date.now()),
          description: r.description,
          imageUrl: r.image_url,
          walletAddress: r.wallet_address,
          treasuryAddress: r.treasury_address,
          eip8004TokenId: r.eip8004_token_id === null ? null : String(r.eip8004_token_id),
          launchpadUrl: d.settings.launchpadTokenUrl.replace("{address}", r.token_address),
          taxIncome: taxIncome ?? null,
          firstBuy,
          ...extra,
        },
      },
      200,
    );
  });
}
