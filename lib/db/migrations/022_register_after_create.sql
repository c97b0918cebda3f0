-- The launch saga now writes the ServiceRegistry entry after createToken, naming the token that
-- TokenCreate reported in the receipt (docs/indexer.md): no saga predicts its token any more,
-- and an entry stored before any createToken belongs to the old order and is never sent.
ALTER TABLE app.launch_sagas DROP COLUMN predicted_token;
UPDATE app.launch_sagas SET register_tx = NULL WHERE create_tx IS NULL;
