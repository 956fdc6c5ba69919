-- Growth to a million links per merchant (docs/decisions.md docs/decisions.md#list-totals-and-search, docs/decisions.md#list-totals-and-search).
--
-- 1. The list's totalCount without counting: each merchant's number of links, kept by a trigger in
--    the transaction that inserts (or deletes) links, so the count a list reads is exactly as
--    current as the rows it reads. The count is spread over 64 slots chosen by the connection's
--    process id: concurrent creates of one merchant on different connections update different rows
--    and do not queue on one row lock until commit. The total is the sum of the slots.
--    No foreign key to merchants: a counter row must never stand in the way of deleting a merchant.
CREATE TABLE merchant_link_counts (
  merchant_id  text NOT NULL,
  slot         smallint NOT NULL,
  link_count   bigint NOT NULL,
  PRIMARY KEY (merchant_id, slot)
);

-- One statement per trigger firing (transition tables), not one per row: a bulk insert of 100,000
-- links updates one counter row. The body stays on one line (migrate.ts splits at a `;` that ends
-- a line).
CREATE FUNCTION count_inserted_payment_links() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO merchant_link_counts (merchant_id, slot, link_count) SELECT merchant_id, pg_backend_pid() % 64, count(*) FROM inserted_links GROUP BY merchant_id ON CONFLICT (merchant_id, slot) DO UPDATE SET link_count = merchant_link_counts.link_count + excluded.link_count; RETURN NULL; END $$;

CREATE FUNCTION count_deleted_payment_links() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO merchant_link_counts (merchant_id, slot, link_count) SELECT merchant_id, pg_backend_pid() % 64, -count(*) FROM deleted_links GROUP BY merchant_id ON CONFLICT (merchant_id, slot) DO UPDATE SET link_count = merchant_link_counts.link_count + excluded.link_count; RETURN NULL; END $$;

-- Creating the triggers locks payment_links against writes until this migration commits, so the
-- backfill below and the triggers together count every link exactly once.
CREATE TRIGGER payment_links_counted_on_insert AFTER INSERT ON payment_links
  REFERENCING NEW TABLE AS inserted_links FOR EACH STATEMENT EXECUTE FUNCTION count_inserted_payment_links();

CREATE TRIGGER payment_links_counted_on_delete AFTER DELETE ON payment_links
  REFERENCING OLD TABLE AS deleted_links FOR EACH STATEMENT EXECUTE FUNCTION count_deleted_payment_links();

INSERT INTO merchant_link_counts (merchant_id, slot, link_count)
SELECT merchant_id, 0, count(*) FROM payment_links GROUP BY merchant_id;

-- 2. Search ("text anywhere in the reference or the description, any letter case", ILIKE '%…%')
--    through trigram indexes instead of reading every link of the merchant. pg_trgm ships with
--    PostgreSQL (a trusted extension: the database owner may create it) and with PGlite, which
--    loads it in db/connect.ts.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE INDEX payment_links_search ON payment_links USING gin (description gin_trgm_ops, reference gin_trgm_ops);
