-- Issue 17 (reads): a version per app table that chain-derived reads also show, so an API
-- process can cache those reads until either the index or the table moves. The version row is
-- updated inside the writer's transaction: a reader sees the new version only together with the
-- rows it describes (a sequence would be seen before the commit and let a stale read be cached).

CREATE TABLE app.read_versions (
  name text PRIMARY KEY,
  version bigint NOT NULL DEFAULT 0
);

INSERT INTO app.read_versions (name) VALUES ('agents');

CREATE FUNCTION app.bump_agents_read_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE app.read_versions SET version = version + 1 WHERE name = 'agents';
  RETURN NULL;
END;
$$;

-- Per statement: a saga step that writes several rows bumps once.
CREATE TRIGGER agents_read_version
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON app.agents
  FOR EACH STATEMENT EXECUTE FUNCTION app.bump_agents_read_version();
