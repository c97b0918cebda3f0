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

/** A row of the anomaly panel: the anomaly and the kind of the event it is about. */
export type AnomalyPanelRow = AnomalyRow & {
  /** The event's type (`policy.applied`); null for a finding in the venue's record. */
  eventKind: string | null;
};

/**
 * The anomaly panel, newest first: the API and the CLI both show these rows, so an operator
 * can go from a row to its event (`eventId`, `eventKind`).
 */
export async function listAnomalies(
  sql: Sql,
  o: { limit: number; agentId?: string },
): Promise<AnomalyPanelRow[]> {
  return sql<AnomalyPanelRow[]>`select a.id::text, a.agent_id as "agentId",
      a.event_id::text as "eventId", e.event_type as "eventKind",
      a.rule, a.expected, a.actual, a.severity, a.policy_id as "policyId",
      a.policy_version as "policyVersion", a.detected_at as "detectedAt"
    from app.policy_anomalies a left join app.agent_events e on e.id = a.event_id
    where ${o.agentId ? sql`a.agent_id = ${o.agentId}` : sql`true`}
    order by a.detected_at desc, a.id desc limit ${o.limit}`;
}
