-- A version per app table that chain-derived reads also show (docs/market.md, "Caching and the
-- indexed block"), so an API process can cache those reads until either the index or the table
-- moves. The version row is updated inside the writer's transaction: a reader sees the new version
-- only together with the rows it describes (a sequence would be seen before the commit and let a
-- stale read be cached).

CREATE TABLE app.read_versions (
  name text PRIMARY KEY,
  version bigint NOT NULL DEFAULT 0
);

INSERT INTO app.read_versions (name) VALUES ('agents');

CREATE FUNCTION app.bump_agents_read_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD IS NOT DISTINCT FROM NEW THEN
    RETURN NULL;
  END IF;
  UPDATE app.read_versions SET version = version + 1 WHERE name = 'agents';
  RETURN NULL;
END;
$$;

-- Deferred to the commit: the version row is the last lock a writer takes, so two writers of
-- app.agents can never deadlock on it (an immediate trigger would lock it in the middle of a
-- transaction that then waits for another agent row), and it is held only while committing.
-- Per changed row; an update that changes nothing bumps nothing.
CREATE CONSTRAINT TRIGGER agents_read_version
  AFTER INSERT OR UPDATE OR DELETE ON app.agents
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION app.bump_agents_read_version();
