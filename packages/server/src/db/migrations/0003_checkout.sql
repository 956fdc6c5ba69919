-- Hosted checkout (issue #4): sale-cap reservations, one submission per form attempt, and the
-- shared secret that signs checkout form tokens.

-- Slots held by payments in flight. A slot is reserved (one atomic UPDATE) before the processor is
-- called and turned into a sale or released afterwards, so an approved card always has its sale
-- and sales_count + reserved_count never passes the cap while the cap stays the same.
ALTER TABLE payment_links ADD COLUMN reserved_count integer NOT NULL DEFAULT 0;
ALTER TABLE payment_links ADD CONSTRAINT reservations_not_negative CHECK (reserved_count >= 0);

-- The form attempt a submission came from: a form posted twice (double click, reload, back
-- button) finds the first submission instead of paying again. Declined attempts free the key.
ALTER TABLE submissions ADD COLUMN attempt_key text;
CREATE UNIQUE INDEX submissions_one_live_per_attempt ON submissions (link_reference, attempt_key) WHERE state IN ('pending', 'approved');
-- Pending submissions are the reservations. A submission's state gains one value, abandoned: a
-- pending reservation whose process died, released after a timeout (see reservations-repository.ts).
CREATE INDEX submissions_pending_by_link ON submissions (link_reference, created_at) WHERE state = 'pending';

-- Secrets every instance must share (e.g. the key that signs checkout form tokens). Created on
-- first use by whichever instance gets there first.
CREATE TABLE server_secrets (
  name        text PRIMARY KEY,
  value       text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
