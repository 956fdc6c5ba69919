-- The audit log (docs/portal.md#audit-log): every change a merchant's people or API keys make, who
-- made it, from which address, and on what. Written in the transaction of the change it records;
-- never changed afterwards: a trigger refuses every UPDATE and DELETE, from Paylink or from psql.
-- One-line function body: the migration splitter cuts only at a ';' that ends a line.
CREATE TABLE audit_log (
  id           bigserial PRIMARY KEY,
  merchant_id  text NOT NULL REFERENCES merchants (id),
  -- user (a portal user), api-key, or operator (the admin API or the command line)
  actor_kind   text NOT NULL CHECK (actor_kind IN ('user', 'api-key', 'operator')),
  -- The portal user's id or the API key's id; null for the operator.
  actor_id     text,
  -- What a person reads: the user's e-mail, the key's prefix, "admin API".
  actor_label  text NOT NULL,
  action       text NOT NULL,
  object_type  text NOT NULL,
  object_id    text NOT NULL,
  -- The request's client address.
  address      text,
  -- Amounts, currencies, changed field names: never secrets or card data.
  details      jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at   timestamptz NOT NULL DEFAULT now()
);
-- The portal's and the admin API's reads: a merchant's newest first.
CREATE INDEX audit_log_by_merchant ON audit_log (merchant_id, created_at DESC, id DESC);
CREATE FUNCTION refuse_audit_log_change() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege'; END $$;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION refuse_audit_log_change();
