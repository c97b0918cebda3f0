-- The read API's own tables (docs/api.md).

-- Request counts per client and fixed window, shared by every API instance.
-- `key` is `ip:<address>` or `<principal kind>:<id>`; rows older than a window are swept.
-- UNLOGGED: one write per request must not cost a WAL flush; after a crash the counters
-- start again from zero, which is harmless for a one-minute budget.
CREATE UNLOGGED TABLE app.rate_limit (
  key text NOT NULL,
  window_start timestamptz NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (key, window_start)
);
CREATE INDEX rate_limit_window_idx ON app.rate_limit (window_start);

-- Agents launched through the service. The launch saga (jobs/launch/) fills it; the read API
-- joins it with the indexed token. Addresses are stored lowercase.
CREATE TABLE app.agents (
  agent_id text PRIMARY KEY,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 32),
  ticker text NOT NULL CHECK (ticker ~ '^[a-zA-Z0-9]{1,10}$'),
  description text NOT NULL,
  image_url text NOT NULL,
  status text NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'active', 'graduated', 'failed')),
  wallet_address text CHECK (wallet_address ~ '^0x[0-9a-f]{40}$'),
  treasury_address text CHECK (treasury_address ~ '^0x[0-9a-f]{40}$'),
  eip8004_token_id numeric(78, 0),
  token_address text UNIQUE CHECK (token_address ~ '^0x[0-9a-f]{40}$'),
  launched_at timestamptz,
  featured boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
-- At most one agent is featured at a time: featureAgent (lib/dashboard/records.ts) moves the
-- flag under a lock, and this index is the last guard (docs/dashboard.md).
CREATE UNIQUE INDEX agents_one_featured_idx ON app.agents (featured) WHERE featured;
CREATE INDEX agents_launched_idx ON app.agents (launched_at DESC NULLS LAST, agent_id);
