-- One row per running process of a long-running role (lib/heartbeat/instances.ts), so a deep
-- health check or a scrape can name an instance that went silent while another of its role is
-- live. app.role_heartbeats stays: it holds what a role shares (the indexer's progress), not
-- who is alive. A clean stop deletes its row; a crashed instance's row is pruned by the live ones
-- once it has been silent for HEARTBEAT_LIMITS.retentionMs.
CREATE TABLE app.instances (
  instance_id text PRIMARY KEY,
  role text NOT NULL,
  host text NOT NULL,
  pid integer NOT NULL,
  version text NOT NULL,
  started_at timestamptz NOT NULL,
  beat_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX instances_role ON app.instances (role, beat_at);
