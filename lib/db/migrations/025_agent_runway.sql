-- The runway figures of the agent list (GET /v2/agents: treasury, monthly burn, runway), stored
-- per agent by the NAV snapshot job each run (lib/dashboard/runway.ts, with the burn-rate
-- computation of GET /v2/agents/{agent}/burn-rate) so the list can sort by them through an index
-- instead of valuing every agent's treasury on the chain per request. Null until the first run
-- values the agent; runway_days is also null when nothing burns.
ALTER TABLE app.agents
  ADD COLUMN treasury_usd numeric,
  ADD COLUMN monthly_burn_usd numeric,
  ADD COLUMN runway_days numeric,
  ADD COLUMN runway_block numeric(78, 0),
  ADD COLUMN runway_at timestamptz;

-- One index per sort and direction of the list, so a page is an index walk whatever the order:
-- nulls last in both directions (an agent not valued yet ends every list), ties by agent_id.
-- Partial: the list shows only agents with a token. launched_at DESC is agents_launched_idx (002).
CREATE INDEX agents_launched_asc_idx ON app.agents (launched_at ASC NULLS LAST, agent_id)
  WHERE token_address IS NOT NULL;
CREATE INDEX agents_name_desc_idx ON app.agents (name DESC NULLS LAST, agent_id)
  WHERE token_address IS NOT NULL;
CREATE INDEX agents_name_asc_idx ON app.agents (name ASC NULLS LAST, agent_id)
  WHERE token_address IS NOT NULL;
CREATE INDEX agents_ticker_desc_idx ON app.agents (ticker DESC NULLS LAST, agent_id)
  WHERE token_address IS NOT NULL;
CREATE INDEX agents_ticker_asc_idx ON app.agents (ticker ASC NULLS LAST, agent_id)
  WHERE token_address IS NOT NULL;
CREATE INDEX agents_treasury_desc_idx ON app.agents (treasury_usd DESC NULLS LAST, agent_id)
  WHERE token_address IS NOT NULL;
CREATE INDEX agents_treasury_asc_idx ON app.agents (treasury_usd ASC NULLS LAST, agent_id)
  WHERE token_address IS NOT NULL;
CREATE INDEX agents_burn_desc_idx ON app.agents (monthly_burn_usd DESC NULLS LAST, agent_id)
  WHERE token_address IS NOT NULL;
CREATE INDEX agents_burn_asc_idx ON app.agents (monthly_burn_usd ASC NULLS LAST, agent_id)
  WHERE token_address IS NOT NULL;
CREATE INDEX agents_runway_desc_idx ON app.agents (runway_days DESC NULLS LAST, agent_id)
  WHERE token_address IS NOT NULL;
CREATE INDEX agents_runway_asc_idx ON app.agents (runway_days ASC NULLS LAST, agent_id)
  WHERE token_address IS NOT NULL;
