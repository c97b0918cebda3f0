-- Holders' dividends claimed for them (docs/dividends.md): the wallets that opted in (a SIWE
-- session of that wallet), and every claim transaction the keeper signed, stored before it is
-- broadcast so a restart re-sends the same bytes instead of signing a second claim.
CREATE TABLE app.dividend_auto_claims (
  address text PRIMARY KEY CHECK (address ~ '^0x[0-9a-f]{40}$'),
  opted_in_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE app.dividend_claim_txs (
  id bigserial PRIMARY KEY,
  token text NOT NULL,
  accounts text[] NOT NULL CHECK (cardinality(accounts) > 0),
  -- What the accounts could claim when it was signed (their claimableFee sum), BNB wei.
  claimable numeric(78) NOT NULL,
  nonce integer NOT NULL,
  tx_hash text NOT NULL UNIQUE,
  raw text NOT NULL,
  -- The most it may cost (gas limit x gas price), counted against the daily budget until mined.
  max_fee numeric(78) NOT NULL,
  status text NOT NULL DEFAULT 'sent' CHECK (status IN ('sent', 'mined', 'reverted', 'dropped')),
  fee numeric(78),
  created_at timestamptz NOT NULL DEFAULT now(),
  settled_at timestamptz
);
CREATE INDEX dividend_claim_txs_open_idx ON app.dividend_claim_txs (id) WHERE status = 'sent';
CREATE INDEX dividend_claim_txs_day_idx ON app.dividend_claim_txs (created_at);
