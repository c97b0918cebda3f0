import type { Sql } from "../db/client.ts";

/** One stored anomaly (`app.policy_anomalies`), as the panel shows it. */
export type AnomalyRow = {
  id: string;
  agentId: string;
  eventId: string | null;
  rule: string;
  expected: string;
  actual: string;
  severity: string;
  policyId: string | null;
  policyVersion: number | null;
  detectedAt: Date;
};

/** The anomaly panel: newest first. */
export async function listAnomalies(
  sql: Sql,
  o: { limit: number; agentId?: string },
): Promise<AnomalyRow[]> {
  return sql<AnomalyRow[]>`select id::text, agent_id as "agentId", event_id::text as "eventId",
      rule, expected, actual, severity, policy_id as "policyId",
      policy_version as "policyVersion", detected_at as "detectedAt"
    from app.policy_anomalies
    where ${o.agentId ? sql`agent_id = ${o.agentId}` : sql`true`}
    order by detected_at desc, id desc limit ${o.limit}`;
}
