-- Saved cards by shopper (docs/api.md#hosted-checkout-sessions): a card saved by a session with a
-- merchantShopperReference is kept under (merchant, that reference); a later session of the same
-- merchant with the same reference offers it. Found through the session that saved it.
CREATE INDEX payment_links_by_shopper ON payment_links (merchant_id, merchant_shopper_reference)
  WHERE kind = 'session' AND merchant_shopper_reference IS NOT NULL;

-- The saved card a session's payment charged (its token), null when a card was typed in: the
-- reconciler undoes such an attempt as a token charge, not as a card authorisation.
ALTER TABLE submissions ADD COLUMN paid_with_token text;
