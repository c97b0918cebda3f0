-- The agent dashboard's own records (docs/dashboard.md): persona, apps, burn config, registered
-- wallets, featuring history, NAV snapshots and the social cache. Chain facts stay in Ponder's
-- views; these are what an agent or an operator says about the agent.

-- Keys write their own agent's dashboard by default (api/AGENT.md: keys are `launch:*`; the
-- dashboard adds `agent:write`). Existing keys get it too: they were issued before it existed.
ALTER TABLE app.agent_keys ALTER COLUMN scopes SET DEFAULT ARRAY['launch:*', 'agent:write'];
UPDATE app.agent_keys SET scopes = scopes || ARRAY['agent:write']
  WHERE NOT ('agent:write' = ANY (scopes));

CREATE TABLE app.agent_personas (
  agent_id text PRIMARY KEY REFERENCES app.agents (agent_id),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
  handle text CHECK (handle ~ '^[A-Za-z0-9_]{1,32}$'),
  bio text NOT NULL DEFAULT '' CHECK (length(bio) <= 2000),
  -- [{label, url}]: shape checked by the API.
  links jsonb NOT NULL DEFAULT '[]',
  image_url text CHECK (length(image_url) <= 2048),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- The featured flag itself is app.agents.featured (002), whose partial unique index makes a
-- second featured agent impossible. Each featuring is one row here: the counter is its count.
CREATE TABLE app.agent_featurings (
  id bigserial PRIMARY KEY,
  agent_id text NOT NULL REFERENCES app.agents (agent_id),
  featured_at timestamptz NOT NULL DEFAULT now(),
  featured_by text NOT NULL
);
CREATE INDEX agent_featurings_agent_idx ON app.agent_featurings (agent_id);

CREATE TABLE app.agent_apps (
  app_id text PRIMARY KEY,
  agent_id text NOT NULL REFERENCES app.agents (agent_id),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
  url text NOT NULL CHECK (length(url) <= 2048),
  description text NOT NULL DEFAULT '' CHECK (length(description) <= 1000),
  -- Revenue routing: who receives the app's revenue, and which share of it (basis points).
  revenue_address text CHECK (revenue_address ~ '^0x[0-9a-f]{40}$'),
  revenue_share_bps integer CHECK (revenue_share_bps BETWEEN 0 AND 10000),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX agent_apps_agent_idx ON app.agent_apps (agent_id, created_at);

-- Burn config: replaced as a whole by PUT; position keeps the agent's order.
CREATE TABLE app.agent_burn_items (
  agent_id text NOT NULL REFERENCES app.agents (agent_id),
  position integer NOT NULL,
  provider text NOT NULL CHECK (length(provider) BETWEEN 1 AND 64),
  kind text NOT NULL CHECK (kind IN ('inference', 'compute', 'other')),
  -- Fixed monthly USD (exact decimal); null for usage-based items.
  monthly_usd numeric(20, 6) CHECK (monthly_usd >= 0),
  usage_based boolean NOT NULL,
  label text CHECK (length(label) <= 120),
  PRIMARY KEY (agent_id, position),
  CHECK (usage_based = (monthly_usd IS NULL))
);

-- Wallets an agent registers beyond the two its launch made (app.agents.wallet_address is
-- the steward wallet, treasury_address the Safe; those are listed but not stored here).
CREATE TABLE app.agent_wallets (
  agent_id text NOT NULL REFERENCES app.agents (agent_id),
  chain text NOT NULL CHECK (chain IN ('bsc', 'arbitrum', 'hyperliquid')),
  address text NOT NULL CHECK (address ~ '^0x[0-9a-f]{40}$'),
  role text NOT NULL CHECK (role IN ('perps', 'treasury', 'operations', 'other')),
  label text CHECK (length(label) <= 64),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (agent_id, chain, address)
);

-- NAV points. '1h' rows are taken by the snapshot job; '1d' rows roll them up (the last
-- hourly point of the day). status 'missing' marks an hour the job could not value.
CREATE TABLE app.nav_snapshots (
  agent_id text NOT NULL REFERENCES app.agents (agent_id),
  interval text NOT NULL CHECK (interval IN ('1h', '1d')),
  t timestamptz NOT NULL,
  status text NOT NULL CHECK (status IN ('ok', 'missing')),
  nav_usd numeric,
  breakdown jsonb,
  block_number bigint,
  reason text,
  taken_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (agent_id, interval, t),
  CHECK ((status = 'ok') = (nav_usd IS NOT NULL))
);

-- Filled by the social poller (a later issue); read by GET /v2/agents/:id/social-stats.
CREATE TABLE app.agent_social_cache (
  agent_id text PRIMARY KEY REFERENCES app.agents (agent_id),
  follower_count integer NOT NULL CHECK (follower_count >= 0),
  posts jsonb NOT NULL DEFAULT '[]',
  cached_at timestamptz NOT NULL
);
