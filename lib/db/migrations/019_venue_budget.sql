-- The perps venue's rate budget, shared by every worker process (docs/pollers.md "Perps: the
-- venue's rate budget"): the weight of each request sent, with its time, summed over a sliding
-- window under one row lock; and the poller-wide back-off after the venue answers 429.
CREATE TABLE app.venue_budget (
  venue text PRIMARY KEY,
  -- The budget in force, written by the workers: weight per window.
  weight_limit integer NOT NULL,
  window_ms integer NOT NULL,
  -- After a 429 nothing is sent before this; the back-off doubles while 429s recur.
  blocked_until timestamptz,
  backoff_ms integer,
  rate_limited integer NOT NULL DEFAULT 0,
  last_rate_limited_at timestamptz,
  -- Polls put off for want of budget (or during a back-off), ever.
  deferred bigint NOT NULL DEFAULT 0,
  -- The head of the line: the oldest refused large spend (a poll's fills and ledger) keeps
  -- this much free until it goes or the claim lapses, so small spends cannot starve it.
  claim_key text,
  claim_weight integer,
  claim_until timestamptz
);

CREATE TABLE app.venue_weight (
  venue text NOT NULL,
  at timestamptz NOT NULL,
  weight integer NOT NULL CHECK (weight > 0)
);
CREATE INDEX venue_weight_by_time ON app.venue_weight (venue, at);

-- Pacing per target, for operators: the interval between its last two successful polls, and
-- the polls deferred since its last success.
ALTER TABLE app.poller_state
  ADD COLUMN period_ms integer,
  ADD COLUMN deferrals integer NOT NULL DEFAULT 0,
  ADD COLUMN last_deferred_at timestamptz;
