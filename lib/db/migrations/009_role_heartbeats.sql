-- Each long-running role (lib/heartbeat/) says here that it is alive, so a deep health check run by
-- any process can tell a dead worker from a quiet one. The indexer role also records how far its
-- index is behind the head and since when (wall clock, not block timestamps), so a stalled index
-- reads as stale even while the chain is quiet or its clock runs ahead (anvil time warps).
CREATE TABLE app.role_heartbeats (
  role text PRIMARY KEY,
  beat_at timestamptz NOT NULL DEFAULT now(),
  -- The indexer: {schema, indexedBlock, headBlock, lagSeconds, advancedAt, headMovedAt}.
  detail jsonb NOT NULL DEFAULT '{}'::jsonb
);
