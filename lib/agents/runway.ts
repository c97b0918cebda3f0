import type { Sql } from "../db/client.ts";
import { parseDec } from "./decimal.ts";
import { burnRate } from "./read.ts";
import type { AgentValuation } from "./valuation.ts";

/**
 * Stores an agent's runway figures for the agent list (migration 024): the treasury Safe's USD
 * from `v`, and the monthly burn and runway of `burnRate` against it: the very computation of
 * `GET /v2/agents/{agent}/burn-rate`, so the list and that route agree for the same valuation.
 *
 * @example
 * await storeRunway(sql, agentId, await valueAgent({ ... }), new Date());
 */
export async function storeRunway(sql: Sql, agentId: string, v: AgentValuation, now: Date) {
  const treasuryUsd = v.sources.agentSafe.totalUsd;
  const b = await burnRate(sql, agentId, parseDec(treasuryUsd), now);
  await sql`update app.agents set treasury_usd = ${treasuryUsd}::numeric,
      monthly_burn_usd = ${b.monthlyUsd}::numeric, runway_days = ${b.runwayDays}::numeric,
      runway_block = ${v.asOf.block}::numeric, runway_at = ${now}
    where agent_id = ${agentId}`;
}
