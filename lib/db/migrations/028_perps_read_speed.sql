-- The perps reads at list speed (api/perps, issue 42). The fill totals of each perps account
-- (realized PnL, fees, fills, wins, losses) are kept by the perps poller in the transaction
-- that stores the fills, from the fills that were new (a fill seen twice adds nothing), so
-- GET /v2/agents/{agent}/perps reads one row instead of summing every fill's JSON. They equal
-- the sums over app.agent_events' `trade.fill` rows of source `hl-listener` (nothing deletes
-- those); filled here from the rows already stored.
CREATE TABLE app.perps_fill_totals (
  agent_id text NOT NULL REFERENCES app.agents (agent_id),
  address text NOT NULL,
  realized numeric NOT NULL,
  fees numeric NOT NULL,
  fills bigint NOT NULL,
  wins bigint NOT NULL,
  losses bigint NOT NULL,
  PRIMARY KEY (agent_id, address)
);

INSERT INTO app.perps_fill_totals
SELECT agent_id, data->>'account',
  coalesce(sum((data->>'closedPnl')::numeric), 0), coalesce(sum((data->>'fee')::numeric), 0),
  count(*), count(*) FILTER (WHERE (data->>'closedPnl')::numeric > 0),
  count(*) FILTER (WHERE (data->>'closedPnl')::numeric < 0)
FROM app.agent_events
WHERE event_type = 'trade.fill' AND source = 'hl-listener' AND data->>'account' IS NOT NULL
GROUP BY agent_id, data->>'account';

-- The PnL series reads a window of an account's hours by the time the venue valued them: an
-- index walk of the window, not of every hour the account ever had.
CREATE INDEX perps_account_hours_time_idx
  ON app.perps_account_hours (address, (coalesce(venue_time, polled_at)));
