-- Trading policy auditor (jobs/policy/): every six hours the policy.applied events of the period
-- are compared with the policy version each names and with the venue's record. A violation is
-- an anomaly, stored once (dedup_key) and also written to the feed as an internal event.
CREATE TABLE app.policy_audit_runs (
  id bigserial PRIMARY KEY,
  period_start timestamptz NOT NULL,
  period_end timestamptz NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  events_checked integer NOT NULL DEFAULT 0,
  anomalies integer NOT NULL DEFAULT 0,
  CHECK (period_end >= period_start)
);
-- The next scheduled run starts where the last finished one ended.
CREATE INDEX policy_audit_runs_finished_idx ON app.policy_audit_runs (period_end DESC)
  WHERE finished_at IS NOT NULL;

CREATE TABLE app.policy_anomalies (
  id bigserial PRIMARY KEY,
  agent_id text NOT NULL REFERENCES app.agents (agent_id),
  -- The policy.applied event it was found in (null for a finding in the venue's record).
  event_id bigint REFERENCES app.agent_events (id) ON DELETE SET NULL,
  source_event_id text,
  rule text NOT NULL CHECK (length(rule) BETWEEN 1 AND 64),
  expected text NOT NULL CHECK (length(expected) <= 500),
  actual text NOT NULL CHECK (length(actual) <= 500),
  severity text NOT NULL CHECK (severity IN ('low', 'medium', 'high', 'critical')),
  policy_id text,
  policy_version integer,
  run_id bigint REFERENCES app.policy_audit_runs (id),
  detected_at timestamptz NOT NULL DEFAULT now(),
  -- One anomaly per finding: a rerun over the same events adds nothing.
  dedup_key text NOT NULL UNIQUE CHECK (length(dedup_key) <= 300)
);
CREATE INDEX policy_anomalies_recent_idx ON app.policy_anomalies (detected_at DESC, id DESC);
CREATE INDEX policy_anomalies_agent_idx ON app.policy_anomalies (agent_id, detected_at DESC);
