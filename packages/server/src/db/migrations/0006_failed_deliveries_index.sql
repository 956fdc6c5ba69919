-- /metrics counts failed deliveries (they wait for a resend by hand); a partial index keeps that
-- a lookup of the few failed rows instead of a scan of the whole, ever-growing delivery log.
CREATE INDEX webhook_deliveries_failed ON webhook_deliveries (created_at) WHERE state = 'failed';
