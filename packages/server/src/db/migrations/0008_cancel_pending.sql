-- An approval Paylink could not turn into a sale (the link sold out while the card was charged) is
-- cancelled at the processor. Until the processor confirms, the submission is flagged, and the
-- reconciler retries the cancel: no approval is left standing without its sale.
ALTER TABLE submissions ADD COLUMN cancel_pending boolean NOT NULL DEFAULT false;
CREATE INDEX submissions_cancel_pending ON submissions (created_at) WHERE cancel_pending;
