import type { Sql } from "../../../lib/db/client.ts";
import type { WebhookBody } from "./body.ts";

const TOKEN_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * Stores a verified, valid webhook in `app.webhook_inbox` with its resolved agent, once per
 * (source, sourceEventId). One round trip when the agent exists; only an insert that stored
 * nothing asks again whether the agent or the duplicate was the reason.
 */
export async function storeWebhook(
  sql: Sql,
  source: string,
  body: WebhookBody,
): Promise<"stored" | "duplicate" | "unknown_agent"> {
  const byToken = TOKEN_ADDRESS.test(body.agentId);
  const key = byToken ? body.agentId.toLowerCase() : body.agentId;
  const agent = () =>
    byToken
      ? sql`select agent_id from app.agents where token_address = ${key}`
      : sql`select agent_id from app.agents where agent_id = ${key}`;
  const rows = await sql`
    insert into app.webhook_inbox (source, source_event_id, event_type, payload, agent_id)
    select ${source}, ${body.sourceEventId}, ${body.eventType}, ${sql.json(body as never)}, a.agent_id
    from (${agent()}) a
    on conflict (source, source_event_id) do nothing
    returning id`;
  if (rows.length > 0) return "stored";
  const [known] = await agent();
  return known ? "duplicate" : "unknown_agent";
}
