-- Fair webhook delivery (issue #12): one merchant's dead endpoint must not delay the others.
--
-- One row per endpoint that has had work: the circuit breaker's state, shared by every worker and
-- instance. A claim locks the rows of the endpoints it takes from (SKIP LOCKED), which makes the
-- per-endpoint cap on sends in flight hold across workers. open_until NULL: closed; set: open,
-- nothing is sent before it; once past it, one probe delivery at a time.
CREATE TABLE webhook_endpoint_health (
  endpoint_id          text PRIMARY KEY REFERENCES webhook_endpoints (id),
  -- Attempts in a row that got no answer (time-out, connection failure); an answer resets it.
  consecutive_failures integer NOT NULL DEFAULT 0,
  open_until           timestamptz,
  -- When the breaker opened (for the log line when it closes); NULL while closed.
  opened_at            timestamptz
);

-- The claim visits endpoints with pending work and takes each one's oldest due deliveries: an index
-- walk per endpoint, so the backlog of one endpoint held by its breaker is never scanned.
CREATE INDEX webhook_deliveries_pending_by_endpoint ON webhook_deliveries (endpoint_id, next_attempt_at, id) WHERE state = 'pending';
-- Sends in flight per endpoint are counted from live leases; this keeps that count to the few leased rows.
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (endpoint_id) WHERE lease_until IS NOT NULL;
