import type { Sql } from "../../lib/db/client.ts";
import { isMissingRelation, view } from "../../lib/db/views.ts";

/**
 * Moves launched agents' stored status on as the index sees their token: `active` once the
 * indexer has it, `graduated` once it left the curve. Reads only the published views; does
 * nothing while they do not exist yet.
 *
 * @example
 * await syncAgentStatus(sql, "onchain");
 */
export async function syncAgentStatus(sql: Sql, viewsSchema: string): Promise<void> {
  try {
    await sql`update app.agents a set status = case when t.status = 'graduated' then 'graduated' else 'active' end
      from ${view(sql, viewsSchema, "token")} t
      where t.address = a.token_address and a.status in ('pending', 'active')
        and a.status <> case when t.status = 'graduated' then 'graduated' else 'active' end`;
  } catch (error) {
    if (!isMissingRelation(error)) throw error;
  }
}
