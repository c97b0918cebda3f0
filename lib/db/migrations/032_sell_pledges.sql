-- The agent's sell pledge (docs/policies.md, "Sell pledge"): versions of its terms, each with the
-- time it binds from (at once for a tightening, after the pledge's own delay for a loosening)
-- and the time a later save cancelled it before it bound; and what the agent's wallet disposed
-- of its own token through the service, which the daily share is counted against.
CREATE TABLE app.sell_pledges (
  id bigserial PRIMARY KEY,
  agent_id text NOT NULL REFERENCES app.agents (agent_id),
  lock_days integer NOT NULL CHECK (lock_days >= 0),
  max_daily_sell_bps integer NOT NULL CHECK (max_daily_sell_bps BETWEEN 0 AND 10000),
  loosen_delay_days integer NOT NULL CHECK (loosen_delay_days >= 0),
  created_at timestamptz NOT NULL,
  effective_at timestamptz NOT NULL CHECK (effective_at >= created_at),
  cancelled_at timestamptz,
  created_by jsonb NOT NULL
);
CREATE INDEX sell_pledges_agent_idx ON app.sell_pledges (agent_id, id DESC);

CREATE TABLE app.pledge_sells (
  id bigserial PRIMARY KEY,
  agent_id text NOT NULL REFERENCES app.agents (agent_id),
  at timestamptz NOT NULL,
  amount numeric(78) NOT NULL CHECK (amount > 0),
  call_id text NOT NULL UNIQUE,
  tx_hash text
);
CREATE INDEX pledge_sells_agent_idx ON app.pledge_sells (agent_id, at);
