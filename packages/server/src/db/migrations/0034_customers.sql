-- Customers and saved cards in the portal (docs/portal.md#customers): both walk one merchant's
-- links and sessions. The older by-merchant index holds links only (sessions have their own by
-- shopper reference), so a merchant's sessions were found by scanning every merchant's rows.
CREATE INDEX payment_links_by_merchant_any_kind ON payment_links (merchant_id);
