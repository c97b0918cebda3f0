-- What the launch keeps of four.meme's create flow between calls (jobs/launch/fourmeme.ts):
-- a login per wallet while it is good, and the hosted URL of every image uploaded, by content.

-- A wallet's four.meme access token, sealed (AES-256-GCM under the SECRETS_KEY-derived key,
-- bound to the wallet address), never stored in the clear. Used until expires_at (four.meme
-- publishes no lifetime: FOURMEME_LIMITS.sessionTtlMs), dropped once the wallet has launched.
CREATE TABLE app.fourmeme_sessions (
  wallet_address text PRIMARY KEY CHECK (wallet_address ~ '^0x[0-9a-f]{40}$'),
  token jsonb NOT NULL,
  logged_in_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);

-- An image four.meme hosts, by the sha256 of its bytes: the same picture is uploaded once.
CREATE TABLE app.fourmeme_images (
  sha256 text PRIMARY KEY CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  url text NOT NULL,
  uploaded_at timestamptz NOT NULL DEFAULT now()
);
