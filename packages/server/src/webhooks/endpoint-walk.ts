// The endpoints with work to send, as the claim (claim.ts) and the slot hand-over (hand-over.ts)
// both find them: one definition, so the two judge "may send now" alike. Fixed SQL text, for a
// prepared statement and for Kysely's sql.raw.

/**
 * A recursive CTE `walk(endpoint_id)`: every endpoint with a pending row, one index probe each (a
 * "loose index scan" of webhook_deliveries_pending_by_endpoint), so its cost follows the number of
 * endpoints with work, not the backlog of one. Its last row is NULL.
 */
export const PENDING_ENDPOINTS_WALK = `walk(endpoint_id) AS (
  (SELECT endpoint_id FROM webhook_deliveries WHERE state = 'pending' ORDER BY endpoint_id LIMIT 1)
  UNION ALL
  SELECT (SELECT d.endpoint_id FROM webhook_deliveries d
          WHERE d.state = 'pending' AND d.endpoint_id > walk.endpoint_id ORDER BY d.endpoint_id LIMIT 1)
  FROM walk WHERE walk.endpoint_id IS NOT NULL
)`;

/**
 * The walked endpoints that may send now: enabled, breaker closed or past its cool-down (an
 * endpoint without a health row is new and may send), with a due delivery that no live lease
 * holds. OFFSET 0 keeps the EXISTS a probe per endpoint walked: pulled up into a join, it hashed
 * every due delivery (6 ms of a claim with a backlog of 10,000). The ORDER BY (the pending index's
 * order) keeps the probe on that index: with statistics that know of a backlog, the planner
 * expected a sequential scan to meet a due row at once, but the delivery log lies before the
 * backlog in the table, and the scan read all of it (21,506 rows of a 23,600-row table, docs/decisions.md#queue-statements).
 */
export const WALKED_ENDPOINTS_THAT_MAY_SEND = `SELECT walk.endpoint_id
  FROM walk
  JOIN webhook_endpoints e ON e.id = walk.endpoint_id AND e.enabled
  LEFT JOIN webhook_endpoint_health h ON h.endpoint_id = walk.endpoint_id
  WHERE (h.open_until IS NULL OR h.open_until <= now())
    AND EXISTS (SELECT 1 FROM webhook_deliveries d
                WHERE d.endpoint_id = walk.endpoint_id AND d.state = 'pending' AND d.next_attempt_at <= now()
                  AND (d.lease_until IS NULL OR d.lease_until < now())
                ORDER BY d.next_attempt_at OFFSET 0)`;
