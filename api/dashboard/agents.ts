import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { DashboardAgent } from "../../lib/dashboard/read.ts";
import type { Sql } from "../../lib/db/client.ts";
import { isMissingRelation, view } from "../../lib/db/views.ts";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";
import { REVALIDATE, sendCached } from "../http/read-cache.ts";
import type { ReadDeps } from "../http/read-deps.ts";
import {
  Address,
  AgentParams,
  BoolQuery,
  COMMON_ERRORS,
  ErrorEnvelope,
  IndexedBlockField,
  IsoTime,
  jsonResponse,
  OffsetQuery,
  offsetList,
  okEnvelope,
} from "../http/schemas.ts";
import { agentOf, agentPath } from "../middleware/agent-path/index.ts";
import type { ApiSettings } from "../settings.ts";
import { DashboardDetailFields } from "./schemas.ts";

const AGENT_STATUS = ["pending", "active", "graduated", "failed"] as const;

export const AgentSummary = z
  .object({
    agentId: z.string(),
    name: z.string(),
    ticker: z.string(),
    tokenAddress: Address,
    status: z.enum(AGENT_STATUS),
    agentPageUrl: z.url(),
  })
  .openapi("AgentSummary");

export const AgentDetail = AgentSummary.extend({
  description: z.string(),
  imageUrl: z.url(),
  walletAddress: Address.nullable(),
  treasuryAddress: Address.nullable(),
  eip8004TokenId: z.string().nullable(),
  launchpadUrl: z.url(),
  launchedAt: IsoTime.nullable(),
  ...DashboardDetailFields,
}).openapi("AgentDetail");

const listRoute = createRoute({
  method: "get",
  path: "/v2/agents",
  tags: ["agents"],
  summary: "Agents launched through the service, newest first",
  description:
    "Only agents that have a token address are listed. `status` is `pending` until the indexer has the token, then `active`, `graduated` once it trades on the DEX; `failed` launches keep that status.",
  request: {
    query: OffsetQuery.extend({
      status: z
        .enum(AGENT_STATUS, { error: `must be one of ${AGENT_STATUS.join(", ")}` })
        .optional(),
      featured: BoolQuery.optional().openapi({
        type: "string",
        enum: ["true", "false"],
        description: "true selects the featured agent; false every other one",
      }),
    }),
  },
  responses: {
    200: jsonResponse(
      "A page of agents",
      okEnvelope(offsetList(AgentSummary).extend({ indexedBlock: IndexedBlockField })),
    ),
    304: { description: "Not modified (the `If-None-Match` ETag still holds)" },
    ...COMMON_ERRORS,
  },
});

const detailRoute = createRoute({
  method: "get",
  path: "/v2/agents/{agent}",
  tags: ["agents"],
  summary: "One agent, by its token address",
  request: { params: AgentParams },
  responses: {
    200: jsonResponse("The agent", okEnvelope(AgentDetail)),
    404: jsonResponse("No agent has this token address", ErrorEnvelope),
    ...COMMON_ERRORS,
  },
});

type AgentRow = {
  agent_id: string;
  name: string;
  ticker: string;
  token_address: string;
  status: (typeof AGENT_STATUS)[number];
  description: string;
  image_url: string;
  wallet_address: string | null;
  treasury_address: string | null;
  eip8004_token_id: string | null;
  launched_at: Date | null;
  total: string;
};

type Filter = {
  status?: string;
  featured?: boolean;
  token?: string;
  limit: number;
  offset: number;
};

/**
 * Agents with their status as the chain says it: the stored status, moved on to `active` once
 * the indexer has the token on its curve and to `graduated` once it left the curve. While the
 * views are not published yet, the stored status is all there is.
 */
async function selectAgents(sql: Sql, schema: string, f: Filter): Promise<AgentRow[]> {
  const run = (joined: boolean) => sql<AgentRow[]>`
    with a as (
      select a.*, ${joined ? liveStatus(sql) : sql`a.status`} as live_status
      from app.agents a
      ${joined ? sql`left join ${view(sql, schema, "token")} t on t.address = a.token_address` : sql``}
      where a.token_address is not null
        ${f.token ? sql`and a.token_address = ${f.token}` : sql``}
        ${f.featured === undefined ? sql`` : sql`and a.featured = ${f.featured}`}
    )
    select a.*, a.live_status as status, count(*) over () as total from a
    where ${f.status ? sql`a.live_status = ${f.status}` : sql`true`}
    order by a.launched_at desc nulls last, a.agent_id
    limit ${f.limit} offset ${f.offset}`;
  try {
    return await run(true);
  } catch (error) {
    if (!isMissingRelation(error)) throw error;
    return run(false);
  }
}

function liveStatus(sql: Sql) {
  return sql`case
    when a.status in ('failed', 'graduated') then a.status
    when t.status::text = 'graduated' then 'graduated'
    when t.status::text = 'curve' then 'active'
    else a.status end`;
}

function summary(r: AgentRow, s: ApiSettings) {
  return {
    agentId: r.agent_id,
    name: r.name,
    ticker: r.ticker,
    tokenAddress: r.token_address,
    status: r.status,
    agentPageUrl: `${s.webUrl}/agent/${r.token_address}`,
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
      const rows = await selectAgents(d.sql, schema, q);
      // A page past the end has no row to carry the total: count again.
      const total = rows[0]
        ? Number(rows[0].total)
        : q.offset > 0
          ? Number(
              (await selectAgents(d.sql, schema, { ...q, limit: 1, offset: 0 }))[0]?.total ?? 0,
            )
          : 0;
      return {
        ok: true as const,
        data: {
          items: rows.map((r) => summary(r, d.settings)),
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
    const extra = await d.detail(agent);
    return c.json(
      {
        ok: true as const,
        data: {
          ...summary(r, d.settings),
          description: r.description,
          imageUrl: r.image_url,
          walletAddress: r.wallet_address,
          treasuryAddress: r.treasury_address,
          eip8004TokenId: r.eip8004_token_id === null ? null : String(r.eip8004_token_id),
          launchpadUrl: d.settings.launchpadTokenUrl.replace("{address}", r.token_address),
          launchedAt: r.launched_at?.toISOString() ?? null,
          ...extra,
        },
      },
      200,
    );
  });
}
