-- Agents someone is looking at (a read of the agent through the API, a WebSocket subscription
-- to its channel) until `until`: the pollers refresh them first (docs/pollers.md "Who is polled
-- when"). One row per agent, moved forward at most once a minute by its readers.
CREATE TABLE app.watched_agents (
  agent_id text PRIMARY KEY,
  until timestamptz NOT NULL
);
CREATE INDEX watched_agents_by_until ON app.watched_agents (until);
