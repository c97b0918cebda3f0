-- The agent event feed: one row per thing an agent did or had done to it, from webhooks, pollers
-- and the indexer. Every later reader (the feed endpoints, the WebSocket bridge, the dashboard,
-- outbound webhooks) reads this table; docs/events.md is its contract.
CREATE TABLE app.agent_events (
  -- Ingestion order. Not a gapless stream on its own (ids are taken before commit): tailers
  -- order by (tx_id, id) and read only below the oldest running transaction, see below.
  id bigserial PRIMARY KEY,
  agent_id text NOT NULL REFERENCES app.agents (agent_id),
  event_type text NOT NULL CHECK (event_type ~ '^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$'),
  category text NOT NULL CHECK (category IN ('trading', 'apps', 'treasury', 'market', 'system')),
  source text NOT NULL CHECK (length(source) BETWEEN 1 AND 64),
  source_event_id text NOT NULL CHECK (length(source_event_id) BETWEEN 1 AND 200),
  occurred_at timestamptz NOT NULL,
  ingested_at timestamptz NOT NULL DEFAULT now(),
  correlation_id text CHECK (length(correlation_id) <= 200),
  visibility text NOT NULL DEFAULT 'public' CHECK (visibility IN ('public', 'hidden', 'internal')),
  data jsonb NOT NULL,
  -- Chain events only: the block the fact was indexed at, so a reorg can find what to correct.
  chain_id integer,
  block_number bigint,
  -- The writing transaction: a tailer that reads (tx_id, id) > its cursor and tx_id below
  -- pg_snapshot_xmin(pg_current_snapshot()) sees every row exactly once, in commit-safe order.
  tx_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
  UNIQUE (source, source_event_id)
);
CREATE INDEX agent_events_feed_idx ON app.agent_events (agent_id, occurred_at DESC, id DESC);
CREATE INDEX agent_events_tail_idx ON app.agent_events (tx_id, id);
CREATE INDEX agent_events_block_idx ON app.agent_events (chain_id, block_number)
  WHERE block_number IS NOT NULL;

-- Wakes tailers in every process (WebSocket bridge, outbound dispatch) once per statement;
-- the payload is only a hint, readers always read from their own cursor.
CREATE FUNCTION app.agent_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('agent_events', '');
  RETURN NULL;
END $$;
CREATE TRIGGER agent_events_notify AFTER INSERT OR UPDATE OR DELETE ON app.agent_events
  FOR EACH STATEMENT EXECUTE FUNCTION app.agent_events_notify();
