-- Payments on a processor's own page (docs/processors.md): an attempt remembers the processor's
-- reference of that page, to ask it for the outcome, and until when the page takes a payment, so
-- its sale slot is held exactly that long. Both are null for attempts paid on Paylink's own form.
ALTER TABLE submissions ADD COLUMN processor_reference text;
ALTER TABLE submissions ADD COLUMN hosted_until timestamptz;
ALTER TABLE submissions ADD COLUMN redirect_url text;
-- The sweep asks the processor about open hosted attempts whose page has closed.
CREATE INDEX submissions_hosted_pending ON submissions (hosted_until) WHERE state = 'pending' AND hosted_until IS NOT NULL;
