-- Outbound webhooks: an agent's subscriptions, one delivery per (subscription, event), every
-- attempt, and the dispatcher's durable position in app.agent_events. docs/webhooks.md is the
-- contract.
CREATE TABLE app.webhook_subscriptions (
  subscription_id text PRIMARY KEY,
  agent_id text NOT NULL REFERENCES app.agents (agent_id),
  url text NOT NULL CHECK (length(url) <= 2048),
  -- NULL: every value passes that filter.
  event_types text[],
  sources text[],
  categories text[],
  description text CHECK (length(description) <= 500),
  enabled boolean NOT NULL DEFAULT true,
  disabled_reason text CHECK (disabled_reason IN ('manual', 'gone', 'failing')),
  disabled_at timestamptz,
  -- The signing secret sealed with AES-256-GCM ({iv, tag, ct}); never stored in clear.
  secret jsonb NOT NULL,
  -- After a rotation the old secret signs alongside the new one until previous_secret_until.
  previous_secret jsonb,
  previous_secret_until timestamptz,
  -- First failed attempt since the last success: 24 h of nothing but failures disables.
  failing_since timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_subscriptions_agent_idx ON app.webhook_subscriptions (agent_id, created_at);

CREATE TABLE app.webhook_deliveries (
  delivery_id text PRIMARY KEY,
  subscription_id text NOT NULL
    REFERENCES app.webhook_subscriptions (subscription_id) ON DELETE CASCADE,
  -- NULL for a webhook.test delivery. No foreign key: a reorg correction may delete the row.
  event_id bigint,
  -- Stable per (event, subscription): receivers dedupe on it across retries and redeliveries.
  webhook_id text NOT NULL,
  event_type text NOT NULL,
  occurred_at timestamptz NOT NULL,
  -- held: a chain event waiting to be final; delivering: an attempt holds the lease.
  status text NOT NULL
    CHECK (status IN ('held', 'pending', 'delivering', 'succeeded', 'failed', 'cancelled')),
  -- The exact bytes signed and sent on every attempt (NULL while held).
  body text,
  hold_chain_id integer,
  hold_block bigint,
  attempts integer NOT NULL DEFAULT 0,
  -- A retry cycle: the schedule's offsets count from cycle_started_at (a redelivery restarts it).
  cycle_started_at timestamptz,
  cycle_attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  -- A worker that dies mid-attempt leaves its lease to lapse: the delivery is due again.
  lease_until timestamptz,
  last_attempt_at timestamptz,
  last_status_code integer,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  UNIQUE (subscription_id, event_id)
);
CREATE INDEX webhook_deliveries_due_idx ON app.webhook_deliveries (next_attempt_at)
  WHERE status IN ('pending', 'delivering');
CREATE INDEX webhook_deliveries_held_idx ON app.webhook_deliveries (hold_block)
  WHERE status = 'held';
CREATE INDEX webhook_deliveries_list_idx
  ON app.webhook_deliveries (subscription_id, created_at DESC, delivery_id DESC);

CREATE TABLE app.webhook_attempts (
  attempt_id bigserial PRIMARY KEY,
  delivery_id text NOT NULL REFERENCES app.webhook_deliveries (delivery_id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  latency_ms integer,
  status_code integer,
  error text,
  -- NULL while the request is in flight; 'interrupted' when its worker died before the answer.
  outcome text CHECK (outcome IN ('succeeded', 'failed', 'interrupted')),
  UNIQUE (delivery_id, attempt)
);

-- The dispatcher's position in app.agent_events (tailAgentEvents cursor), moved in the same
-- transaction that creates the deliveries of the events it passes.
CREATE TABLE app.outbound_cursor (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  tx_id xid8 NOT NULL,
  event_id bigint NOT NULL
);
INSERT INTO app.outbound_cursor (tx_id, event_id) VALUES ('0', 0);
