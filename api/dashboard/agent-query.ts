import type { Fragment } from "postgres";
import type { Sql } from "../../lib/db/client.ts";
import { isMissingRelation, view } from "../../lib/db/views.ts";

// The agent list's query: one index per sort and direction (migrations 002 and 024), so a page
// is an index walk and the total a separate count.

export const AGENT_STATUS = ["pending", "active", "graduated", "failed"] as const;

/** Sorts of `GET /v2/agents` and the column each walks (`age` is `launchedAt` reversed). */
export const AGENT_SORTS = [
  "launchedAt",
  "age",
  "name",
  "ticker",
  "treasuryUsd",
  "monthlyBurnUsd",
  "runwayDays",
] as const;
export type AgentSort = (typeof AGENT_SORTS)[number];

const COLUMN: Record<AgentSort, string> = {
  launchedAt: "launched_at",
  age: "launched_at",
  name: "name",
  ticker: "ticker",
  treasuryUsd: "treasury_usd",
  monthlyBurnUsd: "monthly_burn_usd",
  runwayDays: "runway_days",
};

export type AgentRow = {
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
  treasury_usd: string | null;
  monthly_burn_usd: string | null;
  runway_days: string | null;
  runway_block: string | null;
  runway_at: Date | null;
};

export type AgentFilter = {
  status?: string;
  featured?: boolean;
  token?: string;
  sort?: AgentSort;
  order?: "asc" | "desc";
};

function liveStatus(sql: Sql) {
  return sql`case
    when a.status in ('failed', 'graduated') then a.status
    when t.status::text = 'graduated' then 'graduated'
    when t.status::text = 'curve' then 'active'
    else a.status end`;
}

/**
 * Runs `body` with the token view joined (status as the chain says it), or without it while the
 * views are not published yet (the stored status is all there is).
 */
async function withStatus<T>(
  sql: Sql,
  schema: string,
  body: (from: Fragment, status: Fragment) => Promise<T>,
): Promise<T> {
  try {
    return await body(
      sql`app.agents a left join ${view(sql, schema, "token")} t on t.address = a.token_address`,
      liveStatus(sql),
    );
  } catch (error) {
    if (!isMissingRelation(error)) throw error;
    return body(sql`app.agents a`, sql`a.status`);
  }
}

function where(sql: Sql, f: AgentFilter, status: Fragment) {
  return sql`a.token_address is not null
    ${f.token ? sql`and a.token_address = ${f.token}` : sql``}
    ${f.featured === undefined ? sql`` : sql`and a.featured = ${f.featured}`}
    ${f.status ? sql`and ${status} = ${f.status}` : sql``}`;
}

type PageFilter = AgentFilter & { limit: number; offset: number };

function pageQuery(sql: Sql, from: Fragment, status: Fragment, f: PageFilter) {
  const sort = f.sort ?? "launchedAt";
  const desc = ((f.order ?? "desc") === "desc") !== (sort === "age");
  const key = sql`a.${sql(COLUMN[sort])} ${desc ? sql`desc` : sql`asc`} nulls last, a.agent_id`;
  return sql`select a.agent_id, a.name, a.ticker, a.token_address, ${status} as status,
      a.description, a.image_url, a.wallet_address, a.treasury_address, a.eip8004_token_id,
      a.launched_at, a.treasury_usd::text, a.monthly_burn_usd::text, a.runway_days::text,
      a.runway_block::text, a.runway_at
    from ${from} where ${where(sql, f, status)}
    order by ${key} limit ${f.limit} offset ${f.offset}`;
}

/**
 * A page of agents in `f.sort` order (default: newest launch first), nulls last in either
 * direction, ties by agent id.
 */
export function selectAgents(sql: Sql, schema: string, f: PageFilter): Promise<AgentRow[]> {
  return withStatus(
    sql,
    schema,
    async (from, status) => (await pageQuery(sql, from, status, f)) as unknown as AgentRow[],
  );
}

/** The plan of `selectAgents`'s query (text lines): the test that every sort walks an index. */
export function explainAgents(sql: Sql, schema: string, f: PageFilter): Promise<string[]> {
  return withStatus(sql, schema, async (from, status) => {
    const rows = await sql`explain ${pageQuery(sql, from, status, f)}`;
    return rows.map((r) => String(r["QUERY PLAN"]));
  });
}

/** How many agents `f` selects (the list's `total`). */
export async function countAgents(sql: Sql, schema: string, f: AgentFilter): Promise<number> {
  const [r] = await withStatus(
    sql,
    schema,
    (from, status) =>
      sql<{ n: number }[]>`select count(*)::int as n from ${from} where ${where(sql, f, status)}`,
  );
  return r?.n ?? 0;
}
