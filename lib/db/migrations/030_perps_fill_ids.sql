-- The perps poller's fill events (trade.fill, trade.open, trade.close) were keyed by the venue's
-- trade id alone (`fill:<tid>`). Both sides of one trade carry that tid, and feed ids are unique
-- per source across agents, so when two agents of the service traded with each other the second
-- agent's fill was dropped as a duplicate (its feed, wins and fill totals missed it). The ids now
-- add the fill's order id (`fill:<tid>:<oid>`); stored ones take theirs from their own data, so a
-- later poll's overlap meets them under the new id and stores nothing twice.
UPDATE app.agent_events SET source_event_id = source_event_id || ':' || (data->>'oid')
WHERE source = 'hl-listener' AND source_event_id ~ '^(fill|open|close):[0-9]+$' AND data ? 'oid';
-- Fills dropped that way come back at each account's next poll, which reads its fills again over
-- a first poll's lookback (7 days, POLLER_LIMITS.perps.lookbackMs).
UPDATE app.poller_state SET cursor = cursor - 'fills' - 'sig' WHERE poller = 'perps';
