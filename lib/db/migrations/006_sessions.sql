-- Sessions (docs/sessions.md): SIWE nonces and sessions, patrons over X OAuth, deposit-launch
-- requests. Secrets are stored as sha256 (256-bit random values, so a plain hash suffices).

-- A SIWE nonce: single-use (deleted when consumed), bound to the address that asked for it.
CREATE TABLE app.siwe_nonces (
  nonce text PRIMARY KEY,
  address text NOT NULL CHECK (address ~ '^0x[0-9a-f]{40}$'),
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX siwe_nonces_expiry_idx ON app.siwe_nonces (expires_at);

-- A patron: a human signed in over X (OAuth 2.0 with PKCE).
CREATE TABLE app.patrons (
  patron_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  x_id text NOT NULL UNIQUE,
  x_handle text NOT NULL,
  display_name text NOT NULL,
  avatar_url text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX patrons_handle_idx ON app.patrons (lower(x_handle));

-- A session cookie's opaque id is only known to the browser; the row keeps its hash.
-- kind siwe: `address` is the signed-in wallet; kind patron: `patron_id`.
CREATE TABLE app.sessions (
  id_hash bytea PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('siwe', 'patron')),
  address text CHECK (address ~ '^0x[0-9a-f]{40}$'),
  patron_id uuid REFERENCES app.patrons (patron_id),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  CHECK ((kind = 'siwe') = (address IS NOT NULL)),
  CHECK ((kind = 'patron') = (patron_id IS NOT NULL))
);
CREATE INDEX sessions_expiry_idx ON app.sessions (expires_at);

-- An OAuth login in flight: the state's hash, the PKCE verifier and where to go after.
CREATE TABLE app.oauth_states (
  state_hash bytea PRIMARY KEY,
  code_verifier text NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- A deposit launch asked for by a SIWE session: the relayer's createLaunch transaction is
-- signed and stored before it is broadcast, so a retry re-sends the same bytes instead of
-- creating a second launch. The launch itself is chain data: the indexer writes it.
-- status: pending (transaction stored or being made), created (mined, LaunchCreated seen),
-- failed (nothing was created; a new request may try again).
CREATE TABLE app.deposit_launch_requests (
  request_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  creator text NOT NULL CHECK (creator ~ '^0x[0-9a-f]{40}$'),
  idem_key text,
  request jsonb NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'created', 'failed')),
  tx jsonb,
  launch jsonb,
  error_detail text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (creator, idem_key)
);
CREATE INDEX deposit_launch_requests_creator_idx ON app.deposit_launch_requests (creator, created_at);
