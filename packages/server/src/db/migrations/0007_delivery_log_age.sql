-- The hourly clean-up finds finished deliveries older than the log's retention by age.
CREATE INDEX webhook_deliveries_finished_by_age ON webhook_deliveries (created_at) WHERE state <> 'pending';
