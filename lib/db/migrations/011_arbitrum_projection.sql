-- USDC on Arbitrum (docs/events.md): how far the Arbitrum projector has copied each agent's USDC
-- moves into app.agent_events, and for which deposit addresses. A changed address set
-- reprojects the agent from its whole history (like a changed token in app.chain_projection).

CREATE TABLE app.arbitrum_projection (
  agent_id text PRIMARY KEY REFERENCES app.agents (agent_id),
  -- The agent's perps deposit addresses, lowercase, sorted, comma-separated.
  wallets text NOT NULL,
  projected_to bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
