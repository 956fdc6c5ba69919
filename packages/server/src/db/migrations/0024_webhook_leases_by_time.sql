-- Sends in flight per endpoint are counted from its live leases (lease_until >= now()) on every
-- claim and every slot hand-over (docs/decisions.md#leases-and-fair-shares). With the lease time in the index as well as the endpoint,
-- the planner takes this index for that count even in a prepared statement's generic plan, where
-- the endpoint-only one lost to an index over all of the endpoint's deliveries and the count read
-- the whole backlog (10,000 rows for a 10,000-message backlog, per hand-over statement).
DROP INDEX webhook_deliveries_leased;
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (endpoint_id, lease_until) WHERE lease_until IS NOT NULL;
