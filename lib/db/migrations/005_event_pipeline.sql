-- The agent event pipeline (docs/events.md): the webhook inbox as a work queue with a dead letter,
-- and the chain projector's memory.

-- Inbox rows carry their resolved agent (the API resolves agentId or token address before
-- storing), and their consumption state: processed_at is set in the transaction that wrote
-- their agent_events rows; a row that keeps failing gets failed_at (dead letter) and its error.
ALTER TABLE app.webhook_inbox
  ADD COLUMN agent_id text REFERENCES app.agents (agent_id),
  ADD COLUMN processed_at timestamptz,
  ADD COLUMN attempts integer NOT NULL DEFAULT 0,
  ADD COLUMN last_error text,
  ADD COLUMN failed_at timestamptz;
-- Rows of the steward webhook before this migration: same payload, the source the consumer knows.
UPDATE app.webhook_inbox i SET source = 'steward',
  agent_id = (SELECT a.agent_id FROM app.agents a WHERE a.agent_id = i.payload->>'agentId')
  WHERE source = 'steward-webhook';
CREATE INDEX webhook_inbox_pending_idx ON app.webhook_inbox (id)
  WHERE processed_at IS NULL AND failed_at IS NULL;
CREATE INDEX webhook_inbox_failed_idx ON app.webhook_inbox (failed_at) WHERE failed_at IS NOT NULL;

-- Wakes the consumer once per inserting statement (the payload is only a hint).
CREATE FUNCTION app.webhook_inbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('webhook_inbox', '');
  RETURN NULL;
END $$;
CREATE TRIGGER webhook_inbox_notify AFTER INSERT ON app.webhook_inbox
  FOR EACH STATEMENT EXECUTE FUNCTION app.webhook_inbox_notify();

-- Reads by type and by source for the feed filters and /events/stats.
CREATE INDEX agent_events_type_idx ON app.agent_events (agent_id, event_type);

-- inference.spent is one row per agent-minute: a later delivery for a minute already in the
-- feed is added to it (exact numeric sums; each inbox row is consumed exactly once).
CREATE FUNCTION app.merge_inference_rollup(a jsonb, b jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object(
    'minute', a->'minute',
    'usd', trim_scale((a->>'usd')::numeric + (b->>'usd')::numeric)::text,
    'tokensIn', coalesce((a->>'tokensIn')::bigint, 0) + coalesce((b->>'tokensIn')::bigint, 0),
    'tokensOut', coalesce((a->>'tokensOut')::bigint, 0) + coalesce((b->>'tokensOut')::bigint, 0),
    'deliveries', coalesce((a->>'deliveries')::int, 0) + coalesce((b->>'deliveries')::int, 0),
    'byProvider', coalesce((SELECT jsonb_object_agg(k, trim_scale(sum)::text) FROM (
      SELECT k, sum(v::numeric) FROM (
        SELECT * FROM jsonb_each_text(coalesce(a->'byProvider', '{}'))
        UNION ALL SELECT * FROM jsonb_each_text(coalesce(b->'byProvider', '{}'))) t(k, v)
      GROUP BY k) u), '{}'),
    'providers', coalesce((SELECT jsonb_agg(DISTINCT x ORDER BY x) FROM jsonb_array_elements_text(
      coalesce(a->'providers', '[]') || coalesce(b->'providers', '[]')) x), '[]'),
    'models', coalesce((SELECT jsonb_agg(DISTINCT x ORDER BY x) FROM jsonb_array_elements_text(
      coalesce(a->'models', '[]') || coalesce(b->'models', '[]')) x), '[]'))
$$;

-- The chain projector's memory per agent: up to which indexed block its chain events were
-- copied into agent_events, and for which token (a new or changed token re-projects history).
CREATE TABLE app.chain_projection (
  agent_id text PRIMARY KEY REFERENCES app.agents (agent_id),
  token_address text NOT NULL,
  projected_to bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
