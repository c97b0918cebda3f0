-- Agent wallets prepared before the launch request (jobs/launch/prepare.ts): provisioned at the
-- signer and funded with the gas of the identity registration, so the wallet can register in
-- the first block of its launch instead of waiting for its funding to be mined.
-- status: preparing (a worker holds it while lease_until is in the future), ready (funded).
-- fund_tx is the relayer's signed funding transaction, stored before it is broadcast.
CREATE TABLE app.launch_wallets (
  agent_id text PRIMARY KEY REFERENCES app.agents (agent_id),
  status text NOT NULL DEFAULT 'preparing' CHECK (status IN ('preparing', 'ready')),
  wallet_id text,
  wallet_address text CHECK (wallet_address ~ '^0x[0-9a-f]{40}$'),
  fund_tx jsonb,
  lease_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
