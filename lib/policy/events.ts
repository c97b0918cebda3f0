import type { Sql } from "../db/client.ts";
import type { Decision } from "./decide.ts";

/**
 * A decision of the service's chain as an event of the agent's feed (policy.applied / denied /
 * needs_manual): stored in the inbox as any webhook is (source `policy`, once per call id), so
 * the event consumer renders and delivers it like the rest.
 *
 * @example
 * await reportDecision(sql, agentId, decision, { txHash });
 */
export async function reportDecision(
  sql: Sql,
  agentId: string,
  d: Decision,
  more: Record<string, unknown> = {},
  visibility: "public" | "internal" = "public",
): Promise<void> {
  const body = {
    sourceEventId: d.callId,
    eventType: d.eventType,
    occurredAt: String(d.data.at),
    agentId,
    visibility,
    data: { ...d.data, ...more },
  };
  await sql`insert into app.webhook_inbox (source, source_event_id, event_type, payload, agent_id)
    values ('policy', ${d.callId}, ${d.eventType}, ${sql.json(body as never)}, ${agentId})
    on conflict (source, source_event_id) do nothing`;
}
