-- Webhook delivery worker (issue #5). A claim writes a fresh lease_token with lease_until; the
-- worker records an attempt's outcome only while its token is still the row's, so a worker that
-- stalled past its lease cannot overwrite the state set by the instance that took the row over.
ALTER TABLE webhook_deliveries ADD COLUMN lease_token text;

-- The endpoint's deliveries, newest first (admin/portal delivery log filtered by endpoint).
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, created_at DESC);
