-- Each attempt of an agent's launch has an id: a failed launch answers with it (never with its
-- cause), the caller quotes it to an operator, and GET /v2/admin/launches/{launchId} shows the
-- cause. A new attempt takes a new id; step records name theirs, so an earlier attempt's
-- failure is still found by its id after the saga row has moved on.
ALTER TABLE app.launch_sagas ADD COLUMN launch_id uuid NOT NULL DEFAULT gen_random_uuid();
CREATE UNIQUE INDEX launch_sagas_launch_id_idx ON app.launch_sagas (launch_id);
ALTER TABLE app.launch_steps ADD COLUMN launch_id uuid;
CREATE INDEX launch_steps_launch_id_idx ON app.launch_steps (launch_id);
