-- What the relayer pays for callers with no funds of their own (deposit launches): one row per
-- transaction it signs for them, the ledger its budget is counted from (lib/relayer/spend.ts).
-- client: the caller's bucket (an IPv4 address, an IPv6 /64).
-- status: reserved (admitted, not signed yet), sent (signed and stored: counted at max_wei),
-- mined (counted at spent_wei, reverted or not), released (nothing was sent: counts nothing).
CREATE TABLE app.relayer_spend (
  spend_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  client text NOT NULL,
  status text NOT NULL CHECK (status IN ('reserved', 'sent', 'mined', 'released')),
  tx_hash text UNIQUE CHECK (tx_hash ~ '^0x[0-9a-f]{64}$'),
  -- Gas limit x gas price (+ value): the most the transaction can cost.
  max_wei numeric(78, 0) NOT NULL CHECK (max_wei >= 0),
  -- Gas used x effective gas price (+ value when it succeeded), once mined.
  spent_wei numeric(78, 0) CHECK (spent_wei >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  settled_at timestamptz,
  CHECK ((status = 'mined') = (spent_wei IS NOT NULL))
);
CREATE INDEX relayer_spend_client_idx ON app.relayer_spend (client, created_at);
CREATE INDEX relayer_spend_created_idx ON app.relayer_spend (created_at);
