-- The agent's trading policy and what its evaluators need, kept by the service (it judges every
-- order before the signer is asked): immutable versions (the newest is the active one), the
-- ledger of the trades it let through (today's opens, spot positions), and the leverage it last
-- let an order set per venue coin. Keyed by the signer's wallet id (Steward's agent id).
CREATE TABLE app.policy_versions (
  policy_id text PRIMARY KEY,
  wallet_id text NOT NULL,
  version integer NOT NULL CHECK (version >= 1),
  rules jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  created_by jsonb NOT NULL,
  UNIQUE (wallet_id, version)
);

CREATE TABLE app.policy_ledger (
  id bigserial PRIMARY KEY,
  wallet_id text NOT NULL,
  at timestamptz NOT NULL,
  venue text NOT NULL,
  asset text NOT NULL,
  side text NOT NULL CHECK (side IN ('long', 'short')),
  action text NOT NULL CHECK (action IN ('open', 'close')),
  notional_usd numeric NOT NULL,
  policy_id text NOT NULL,
  version integer NOT NULL,
  ref text NOT NULL
);
CREATE INDEX policy_ledger_wallet_idx ON app.policy_ledger (wallet_id, at);

CREATE TABLE app.policy_leverage (
  wallet_id text NOT NULL,
  coin text NOT NULL,
  leverage integer NOT NULL CHECK (leverage >= 1),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (wallet_id, coin)
);
