-- Each instance keeps the API keys it has seen in memory (db/api-key-cache.ts) and asks this one
-- row at most once a second whether any key changed. Any statement that revokes, deletes or
-- re-points a key (from Paylink or from an operator's psql) bumps the generation; "last used"
-- writes do not. A one-line function body: the migration splitter cuts only at a ';' that ends a
-- line (docs/decisions.md docs/decisions.md#two-databases-one-sql).
CREATE TABLE api_key_generation (
  id          boolean PRIMARY KEY DEFAULT true CHECK (id),
  generation  bigint NOT NULL
);
INSERT INTO api_key_generation (id, generation) VALUES (true, 0);
CREATE FUNCTION bump_api_key_generation() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE api_key_generation SET generation = generation + 1; RETURN NULL; END $$;
CREATE TRIGGER api_keys_changed AFTER UPDATE OF key_hash, merchant_id, revoked_at OR DELETE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION bump_api_key_generation();
CREATE TRIGGER api_keys_truncated AFTER TRUNCATE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION bump_api_key_generation();
