-- Hosted-checkout sessions (docs/decisions.md#sale-cap-reservation): a session is a row of
-- payment_links of kind 'session', so its payment takes the links' one path (reservation with a
-- cap of one sale, the result, the outbox). Its own columns are NULL or false on a link.
ALTER TABLE payment_links ADD COLUMN kind text NOT NULL DEFAULT 'link' CHECK (kind IN ('link', 'session'));
-- The merchant's order id: not unique (a shop makes a new session when the shopper tries again).
ALTER TABLE payment_links ADD COLUMN order_reference text;
ALTER TABLE payment_links ADD COLUMN abandon_url text;
ALTER TABLE payment_links ADD COLUMN merchant_shopper_reference text;
ALTER TABLE payment_links ADD COLUMN shopper_contact text;
ALTER TABLE payment_links ADD COLUMN is_manual_capture boolean NOT NULL DEFAULT false;
ALTER TABLE payment_links ADD COLUMN capture_hours_delay integer CHECK (capture_hours_delay BETWEEN 1 AND 672);
ALTER TABLE payment_links ADD COLUMN is_pre_auth boolean NOT NULL DEFAULT false;
ALTER TABLE payment_links ADD CONSTRAINT sessions_have_an_order CHECK ((kind = 'session') = (order_reference IS NOT NULL));

-- Whether the payment was authorised for manual capture (copied from its session at the
-- reservation): the capture and the refund rules read the payment, not the session.
ALTER TABLE submissions ADD COLUMN manual_capture boolean NOT NULL DEFAULT false;

-- The links API and the portal never show sessions: the list's index and the search index hold
-- links only, so a merchant with a million orders lists its ten links as fast as before.
DROP INDEX payment_links_by_merchant_newest;
CREATE INDEX payment_links_by_merchant_newest ON payment_links (merchant_id, created_at DESC, reference DESC) WHERE kind = 'link';
DROP INDEX payment_links_search;
CREATE INDEX payment_links_search ON payment_links USING gin (description gin_trgm_ops, reference gin_trgm_ops) WHERE kind = 'link';

-- The list's totalCount counts links only.
CREATE OR REPLACE FUNCTION count_inserted_payment_links() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO merchant_link_counts (merchant_id, slot, link_count) SELECT merchant_id, pg_backend_pid() % 64, count(*) FROM inserted_links WHERE kind = 'link' GROUP BY merchant_id ON CONFLICT (merchant_id, slot) DO UPDATE SET link_count = merchant_link_counts.link_count + excluded.link_count; RETURN NULL; END $$;

CREATE OR REPLACE FUNCTION count_deleted_payment_links() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO merchant_link_counts (merchant_id, slot, link_count) SELECT merchant_id, pg_backend_pid() % 64, -count(*) FROM deleted_links WHERE kind = 'link' GROUP BY merchant_id ON CONFLICT (merchant_id, slot) DO UPDATE SET link_count = merchant_link_counts.link_count + excluded.link_count; RETURN NULL; END $$;
