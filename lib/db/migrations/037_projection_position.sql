-- Where each chain projector stands (docs/events.md), one row per source: a pass projects every
-- agent it follows up to the head it saw, so one position serves them all. The per-agent rows
-- (app.chain_projection, app.arbitrum_projection) keep what each agent is followed by (its
-- token, its deposit addresses) and are written only when that changes, not on every block.
CREATE TABLE app.projection_position (
  source text PRIMARY KEY,
  projected_to bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
