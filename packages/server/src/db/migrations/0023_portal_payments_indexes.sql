-- The portal's payments list (docs/decisions.md docs/decisions.md#portal-payments) chooses a page of a merchant's finished
-- payments on their reference and time alone: these partial indexes hold exactly those rows and
-- columns, so the page and its count are read from the indexes (index-only scans), newest first.
-- Link sales are found through the merchant's links; saved-card charges by the merchant.
CREATE INDEX submissions_finished_by_link ON submissions (link_reference, created_at DESC, id DESC) WHERE state IN ('approved', 'declined', 'failed');
CREATE INDEX token_payments_finished_by_merchant ON token_payments (merchant_id, created_at DESC, id DESC) WHERE state IN ('approved', 'declined', 'failed');
-- Served only the portal's reads, which the index above now serves; a pending charge no longer
-- costs an index entry it was never read by.
DROP INDEX token_payments_by_merchant;
