// How each webhook endpoint of a merchant is doing (docs/portal.md#developers): deliveries waiting
// for a retry after a failed attempt, those given up on lately, and the breaker's pause. Read from
// the pending deliveries (a small set, indexed by endpoint), the recent failures and the breaker
// row; nothing is written on the delivery path for it.
import { sql } from "kysely";
import type { EndpointHealth } from "../domain/webhooks/endpoint-condition.ts";
import type { Database } from "./connect.ts";

/** How far back "given up on" looks. */
const GAVE_UP_DAYS = 7;

export async function endpointHealth(db: Database, merchantId: string): Promise<Map<string, EndpointHealth>> {
  const { rows } = await sql<{
    id: string;
    retrying: string;
    failing_since: Date | null;
    next_retry_at: Date | null;
    gave_up: string;
    paused_until: Date | null;
  }>`
    SELECT e.id, r.retrying, r.failing_since, r.next_retry_at, f.gave_up,
           CASE WHEN h.open_until > now() THEN h.open_until END AS paused_until
    FROM webhook_endpoints e
    LEFT JOIN webhook_endpoint_health h ON h.endpoint_id = e.id
    CROSS JOIN LATERAL (
      SELECT count(*) AS retrying, min(d.created_at) AS failing_since, min(d.next_attempt_at) AS next_retry_at
      FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.state = 'pending' AND d.attempt_count > 0
    ) r
    CROSS JOIN LATERAL (
      SELECT count(*) AS gave_up FROM webhook_deliveries d
      WHERE d.endpoint_id = e.id AND d.state = 'failed' AND d.created_at > now() - make_interval(days => ${GAVE_UP_DAYS})
    ) f
    WHERE e.merchant_id = ${merchantId}`.execute(db);
  return new Map(
    rows.map((row) => [
      row.id,
      {
        retrying: Number(row.retrying),
        failingSince: row.failing_since,
        nextRetryAt: row.next_retry_at,
        gaveUp: Number(row.gave_up),
        pausedUntil: row.paused_until,
      },
    ]),
  );
}
