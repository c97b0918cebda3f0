-- Agent keys (lib/agents/keys.ts) and the launch saga (jobs/launch/). Extends the read API's
-- app.agents (002).

-- An operator registers an agent by name before it launches; what it launches (ticker,
-- description, image) arrives with the launch request.
ALTER TABLE app.agents ALTER COLUMN ticker DROP NOT NULL;
ALTER TABLE app.agents ALTER COLUMN description DROP NOT NULL;
ALTER TABLE app.agents ALTER COLUMN image_url DROP NOT NULL;
-- The createToken transaction, for the LaunchResponse.
ALTER TABLE app.agents ADD COLUMN tx_hash text CHECK (tx_hash ~ '^0x[0-9a-f]{64}$');

-- API keys: only a sha256 of the secret (256-bit random, so a plain hash suffices) and a
-- short public prefix to find the candidate row; compared in constant time in code.
CREATE TABLE app.agent_keys (
  key_id text PRIMARY KEY,
  agent_id text NOT NULL REFERENCES app.agents (agent_id),
  prefix text NOT NULL,
  key_hash bytea NOT NULL,
  scopes text[] NOT NULL DEFAULT ARRAY['launch:*'],
  expires_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX agent_keys_prefix_idx ON app.agent_keys (prefix);
CREATE INDEX agent_keys_agent_idx ON app.agent_keys (agent_id) WHERE revoked_at IS NULL;

-- One launch saga per agent: the row is the saga's memory across attempts and crashes, so a
-- retry after a failure reuses the wallet, Safe and identity an earlier attempt made.
-- status: running (an attempt owns it), succeeded (the agent launched: terminal), failed
-- (the last attempt gave up; a new request may start another attempt).
CREATE TABLE app.launch_sagas (
  agent_id text PRIMARY KEY REFERENCES app.agents (agent_id),
  status text NOT NULL CHECK (status IN ('running', 'succeeded', 'failed')),
  attempt integer NOT NULL DEFAULT 1,
  request jsonb NOT NULL,
  step text,
  error_code text,
  error_detail text,
  -- A worker holds the saga while lease_until is in the future; a crashed one lets it lapse.
  lease_owner text,
  lease_until timestamptz,
  wallet_id text,
  wallet_address text,
  fund_tx jsonb,
  safe_tx jsonb,
  treasury_address text,
  identity_tx text,
  eip8004_token_id numeric(78, 0),
  create_arg text,
  create_signature text,
  request_id numeric(78, 0),
  predicted_token text,
  register_tx jsonb,
  create_tx text,
  token_address text,
  started_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX launch_sagas_running_idx ON app.launch_sagas (lease_until) WHERE status = 'running';

-- Every step, recorded before ('begin') and after ('end' or 'error') it runs.
CREATE TABLE app.launch_steps (
  id bigserial PRIMARY KEY,
  agent_id text NOT NULL,
  attempt integer NOT NULL,
  step text NOT NULL,
  phase text NOT NULL CHECK (phase IN ('begin', 'end', 'skip', 'error')),
  detail jsonb,
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX launch_steps_agent_idx ON app.launch_steps (agent_id, id);

-- Idempotency-Key: the first request's final answer, replayed to retries with the same key.
CREATE TABLE app.launch_idempotency (
  agent_id text NOT NULL,
  idem_key text NOT NULL,
  status integer,
  body jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (agent_id, idem_key)
);

-- Inbound webhooks, stored once per (source, source_event_id) before anything acts on them.
CREATE TABLE app.webhook_inbox (
  id bigserial PRIMARY KEY,
  source text NOT NULL,
  source_event_id text NOT NULL,
  event_type text NOT NULL,
  payload jsonb NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (source, source_event_id)
);
