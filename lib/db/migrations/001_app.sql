-- The service's own (off-chain) schema. Ponder's schemas are never written by us.
-- (the schema itself is created by the migrator)

-- Small facts the roles agree on: the chain identity the index belongs to, the live
-- indexer deployment schema.
CREATE TABLE app.meta (
  key text PRIMARY KEY,
  value jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
