-- Off-chain pollers (docs/pollers.md): per (poller, agent, target) cursors and health, the perps
-- account cache behind the dashboard's `hyperliquid` holdings source, and its hourly history
-- for NAV backfill. Events themselves go to app.agent_events (dedup by source + id).

CREATE TABLE app.poller_state (
  poller text NOT NULL CHECK (poller IN ('perps', 'safe', 'social')),
  agent_id text NOT NULL REFERENCES app.agents (agent_id),
  -- The polled thing: a perps account address, a Safe address, an X handle.
  target text NOT NULL,
  -- Poller-specific resume point (fills/ledger times, since_id, …); only ever moves forward.
  cursor jsonb NOT NULL DEFAULT '{}',
  last_attempt_at timestamptz,
  last_success_at timestamptz,
  last_error text,
  last_error_at timestamptz,
  -- Consecutive failures since the last success.
  failures integer NOT NULL DEFAULT 0,
  -- A rate-limited source asks us to wait: no poll before this.
  not_before timestamptz,
  PRIMARY KEY (poller, agent_id, target)
);

-- The last clearinghouseState of each polled perps account.
CREATE TABLE app.perps_accounts (
  address text PRIMARY KEY CHECK (address ~ '^0x[0-9a-f]{40}$'),
  agent_id text NOT NULL REFERENCES app.agents (agent_id),
  account_value numeric NOT NULL,
  withdrawable numeric NOT NULL,
  margin_used numeric NOT NULL,
  positions jsonb NOT NULL DEFAULT '[]',
  -- The venue's own time of the state, and when we read it.
  venue_time timestamptz NOT NULL,
  polled_at timestamptz NOT NULL
);

-- The last poll of each hour: NAV backfill values a past hour with what was seen then.
CREATE TABLE app.perps_account_hours (
  address text NOT NULL,
  hour timestamptz NOT NULL,
  account_value numeric NOT NULL,
  polled_at timestamptz NOT NULL,
  PRIMARY KEY (address, hour)
);
