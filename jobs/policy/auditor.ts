import type { Sql } from "../../lib/db/client.ts";
import { insertAgentEvents } from "../../lib/events/store.ts";
import type { AnomalyRow } from "../../lib/policy/anomalies.ts";
import {
  type AppliedEvent,
  auditDailyBudget,
  auditEvent,
  auditVenuePosition,
  type Finding,
} from "../../lib/policy/audit.ts";
import type { PolicyVersion } from "../../lib/policy/model.ts";
import { POLICY_AUDIT } from "../limits.ts";

/** What the auditor reads besides the database: the signer's versions, the venue's record. */
export type AuditSources = {
  versions: (walletId: string) => Promise<PolicyVersion[]>;
  /** The perps account of a wallet (absent: the venue record is not compared). */
  venuePositions?: (
    wallet: string,
  ) => Promise<{ coin: string; positionValueUsd: string; leverage: number }[]>;
};

export type AuditRun = { runId: string; checked: number; anomalies: AnomalyRow[] };

const DAY_MS = 86_400_000;

type Candidate = Finding & {
  agentId: string;
  event?: AppliedEvent;
  policyId?: string;
  version?: number;
  key: string;
};

/** A `policy.applied` row as the auditor selects it (the id as text: a bigint column). */
type AppliedRow = {
  id: string;
  agent_id: string;
  source_event_id: string;
  occurred_at: Date;
  data: Record<string, unknown>;
};

/** The `policy.applied` events that match `where`, oldest first. */
async function appliedEvents(sql: Sql, where: ReturnType<Sql>): Promise<AppliedEvent[]> {
  const rows = await sql<AppliedRow[]>`
    select id::text, agent_id, source_event_id, occurred_at, data from app.agent_events
    where event_type = 'policy.applied' and ${where}
    order by occurred_at, id`;
  return rows.map(toApplied);
}

/**
 * One audit: every `policy.applied` event ingested since the last run (or the last six
 * hours) against the version it names and the day's budget; each agent's perps positions
 * against its policy. New anomalies are stored with an `internal` `policy.anomaly` event in
 * one transaction; a rerun over the same events adds nothing (dedup key per finding).
 */
export async function runPolicyAudit(p: {
  sql: Sql;
  sources: AuditSources;
  now: Date;
  /** Audit from here instead of the last run's end (the CLI's `--since`). */
  since?: Date;
}): Promise<AuditRun> {
  const { sql } = p;
  const [last] = await sql<{ end: Date }[]>`select period_end as end from app.policy_audit_runs
    where finished_at is not null order by period_end desc limit 1`;
  const start = p.since ?? last?.end ?? new Date(p.now.getTime() - POLICY_AUDIT.periodMs);
  const events = await appliedEvents(
    sql,
    sql`ingested_at >= ${start} and ingested_at < ${p.now}
      and data ? 'kind'`, // a decision of the service's chain; Steward's bare tx.signed has none
  );
  const agents = await sql<
    { agent_id: string; wallet_id: string | null; wallet_address: string | null }[]
  >`
    select a.agent_id, s.wallet_id, a.wallet_address from app.agents a
    join app.launch_sagas s on s.agent_id = a.agent_id where s.wallet_id is not null`;
  const versions = new Map<string, PolicyVersion[]>();
  for (const a of agents) {
    if (a.wallet_id && (events.some((e) => e.agentId === a.agent_id) || p.sources.venuePositions)) {
      versions.set(a.agent_id, await p.sources.versions(a.wallet_id));
    }
  }
  const versionOf = (e: AppliedEvent) =>
    versions.get(e.agentId)?.find((v) => v.policyId === e.data.policyId);
  const found: Candidate[] = [];
  for (const e of events) {
    for (const f of auditEvent(e, versionOf(e))) found.push(candidate(e, f, versionOf(e)));
  }
  // Budgets: every applied event of the days these events touch, oldest first.
  const days = [...new Set(events.map((e) => dayOf(e)))];
  if (days.length > 0) {
    const from = new Date(Math.min(...days.map((d) => Date.parse(d))) - DAY_MS);
    const to = new Date(Math.max(...days.map((d) => Date.parse(d))) + 2 * DAY_MS);
    const dayEvents = await appliedEvents(
      sql,
      sql`occurred_at >= ${from} and occurred_at < ${to}
        and agent_id in ${sql([...new Set(events.map((e) => e.agentId))])}`,
    );
    const inPeriod = new Set(events.map((e) => e.id));
    for (const [id, f] of auditDailyBudget(dayEvents, versionOf)) {
      const e = dayEvents.find((x) => x.id === id) as AppliedEvent;
      if (inPeriod.has(id)) found.push(candidate(e, f, versionOf(e)));
    }
  }
  if (p.sources.venuePositions) {
    for (const a of agents) {
      const vs = versions.get(a.agent_id);
      if (!a.wallet_address || !vs?.length) continue;
      const active = vs[0] as PolicyVersion; // newest first
      for (const pos of await p.sources.venuePositions(a.wallet_address)) {
        // Judged by the version its latest open was signed under; open positions keep theirs.
        const [opened] = await sql<{ policy_id: string }[]>`
          select data->>'policyId' as policy_id from app.agent_events
          where agent_id = ${a.agent_id} and event_type = 'policy.applied'
            and data->>'venue' = 'hyperliquid' and data->>'asset' = ${pos.coin}
            and data->>'action' = 'open'
          order by occurred_at desc, id desc limit 1`;
        const v = vs.find((x) => x.policyId === opened?.policy_id) ?? active;
        for (const f of auditVenuePosition(pos, v.rules)) {
          found.push({
            ...f,
            agentId: a.agent_id,
            policyId: v.policyId,
            version: v.version,
            key: `venue:${a.agent_id}:${pos.coin}:${f.rule}:${p.now.toISOString().slice(0, 10)}`,
          });
        }
      }
    }
  }
  return store(sql, { start, end: p.now, checked: events.length, found });
}

function toApplied(r: AppliedRow): AppliedEvent {
  return {
    id: BigInt(r.id),
    agentId: r.agent_id,
    sourceEventId: r.source_event_id,
    occurredAt: r.occurred_at,
    data: r.data,
  };
}

const dayOf = (e: AppliedEvent) =>
  (typeof e.data.at === "string" ? e.data.at : e.occurredAt.toISOString()).slice(0, 10);

function candidate(e: AppliedEvent, f: Finding, v: PolicyVersion | undefined): Candidate {
  return {
    ...f,
    agentId: e.agentId,
    event: e,
    policyId: v?.policyId ?? (typeof e.data.policyId === "string" ? e.data.policyId : undefined),
    version: v?.version ?? (typeof e.data.version === "number" ? e.data.version : undefined),
    key: `event:${e.id}:${f.rule}`,
  };
}

async function store(
  sql: Sql,
  r: { start: Date; end: Date; checked: number; found: Candidate[] },
): Promise<AuditRun> {
  return sql.begin(async (tx) => {
    const t = tx as unknown as Sql;
    const [run] = await t<{ id: string }[]>`insert into app.policy_audit_runs
      (period_start, period_end, events_checked) values (${r.start}, ${r.end}, ${r.checked})
      returning id::text`;
    const runId = (run as { id: string }).id;
    const fresh: AnomalyRow[] = [];
    for (const f of r.found) {
      const [row] = await t<AnomalyRow[]>`insert into app.policy_anomalies (agent_id, event_id,
          source_event_id, rule, expected, actual, severity, policy_id, policy_version, run_id, dedup_key)
        values (${f.agentId}, ${f.event ? f.event.id.toString() : null}, ${f.event?.sourceEventId ?? null},
          ${f.rule}, ${f.expected.slice(0, 500)}, ${f.actual.slice(0, 500)}, ${f.severity},
          ${f.policyId ?? null}, ${f.version ?? null}, ${runId}, ${f.key})
        on conflict (dedup_key) do nothing
        returning id::text, agent_id as "agentId", event_id::text as "eventId", rule, expected,
          actual, severity, policy_id as "policyId", policy_version as "policyVersion",
          detected_at as "detectedAt"`;
      if (row) fresh.push(row);
    }
    await insertAgentEvents({
      sql: t,
      events: fresh.map((a) => ({
        agentId: a.agentId,
        eventType: "policy.anomaly",
        category: "system",
        source: "policy-auditor",
        sourceEventId: `anomaly:${a.id}`,
        occurredAt: a.detectedAt,
        visibility: "internal",
        data: {
          anomalyId: a.id,
          rule: a.rule,
          expected: a.expected,
          actual: a.actual,
          severity: a.severity,
          policyId: a.policyId,
          version: a.policyVersion,
          eventId: a.eventId,
        },
      })),
    });
    await t`update app.policy_audit_runs set finished_at = now(), anomalies = ${fresh.length}
      where id = ${runId}`;
    return { runId, checked: r.checked, anomalies: fresh };
  });
}
