-- webhook_deliveries_due (next_attempt_at, every pending delivery) served no statement that
-- webhook_deliveries_pending_by_endpoint does not serve as well, and it was a trap: with
-- statistics taken before a backlog arrived (the usual case: a receiver down for an hour against a
-- delivery log of a million rows, 1% of them new), the planner judged pending rows rare and read
-- the endpoint walk and the next due deliveries of an endpoint through it, sorting the whole
-- backlog on every claim and every slot hand-over (27 ms per statement with a 10,000 backlog).
-- One index fewer is also one entry fewer to write for every queued delivery and every lease.
DROP INDEX IF EXISTS webhook_deliveries_due;
