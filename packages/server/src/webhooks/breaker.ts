// The circuit breaker of each webhook endpoint (docs/webhooks.md#fairness-between-endpoints). Its
// state lives in webhook_endpoint_health, so every worker and instance sees the same breaker:
//   closed — deliveries are sent as usual; attempts that get no answer (time-out, no connection)
//            are counted, and `threshold` of them in a row open the breaker;
//   open   — until open_until nothing is claimed for the endpoint: its deliveries stay pending,
//            untouched (their retry schedule does not move: being held back is not an attempt);
//   probe  — past open_until the claim takes one delivery at a time. An answer (any HTTP status)
//            closes the breaker; no answer opens it again for twice as long, up to `maxCooldownMs`.
// Only "no answer" counts: a receiver that answers, even with a 500, frees its slot at once and is
// handled by each delivery's own retry schedule.
import { sql } from "kysely";
import type { Database } from "../db/connect.ts";

export interface BreakerPolicy {
  /** Attempts in a row without an answer that open the breaker (default 5). */
  threshold: number;
  /** First cool-down before a probe (default 30 s); doubled after each failed probe. */
  cooldownMs: number;
  /** The longest cool-down (default 10 min). */
  maxCooldownMs: number;
}

export const DEFAULT_BREAKER_POLICY: BreakerPolicy = { threshold: 5, cooldownMs: 30_000, maxCooldownMs: 10 * 60_000 };

/** What an attempt told about the endpoint: it answered, it did not, or nothing (not sent, refused target). */
export type EndpointVerdict = "answered" | "no-answer" | undefined;

/** A change of the breaker's state, for the log. */
export type BreakerChange =
  | { kind: "opened"; failures: number; cooldownMs: number }
  | { kind: "probe-failed"; failures: number; cooldownMs: number }
  | { kind: "closed"; openForMs: number };

/**
 * Updates the endpoint's breaker after an attempt has been recorded; each branch is one statement,
 * which locks the row while it reads and writes it. A
 * failure of a delivery sent while the breaker was already open (it was in flight when it opened)
 * changes nothing: only the probe's outcome may reopen it, so the cool-down is not stretched by
 * stragglers. Returns the change, if any, so the worker can log it.
 */
export async function recordEndpointVerdict(
  db: Database,
  endpointId: string,
  verdict: EndpointVerdict,
  probe: boolean,
  policy: BreakerPolicy,
): Promise<BreakerChange | undefined> {
  if (verdict === undefined) return undefined;
  if (verdict === "answered") {
    const { rows } = await sql<{ open_for_ms: number | null }>`
      WITH before AS (
        SELECT endpoint_id, opened_at FROM webhook_endpoint_health WHERE endpoint_id = ${endpointId} FOR UPDATE
      )
      UPDATE webhook_endpoint_health AS h
      SET consecutive_failures = 0, open_until = NULL, opened_at = NULL
      FROM before
      WHERE h.endpoint_id = before.endpoint_id AND (h.consecutive_failures > 0 OR h.open_until IS NOT NULL)
      RETURNING (extract(epoch FROM now() - before.opened_at) * 1000)::float8 AS open_for_ms
    `.execute(db);
    const openForMs = rows[0]?.open_for_ms;
    return openForMs === null || openForMs === undefined ? undefined : { kind: "closed", openForMs: Math.round(openForMs) };
  }

  // No answer. The cool-down doubles with each failed probe: failures past the threshold count them.
  const { rows } = await sql<{ failures: number; was_open: boolean; is_open: boolean; cooldown_ms: number }>`
    WITH before AS (
      SELECT endpoint_id, consecutive_failures, open_until FROM webhook_endpoint_health WHERE endpoint_id = ${endpointId} FOR UPDATE
    ),
    next AS (
      SELECT endpoint_id, open_until, consecutive_failures + 1 AS failures,
             least(${policy.maxCooldownMs}::float8,
                   ${policy.cooldownMs}::float8 * power(2, greatest(0, least(20, consecutive_failures + 1 - ${policy.threshold}::int)))) AS cooldown_ms
      FROM before
      WHERE open_until IS NULL OR ${probe}::boolean
    )
    UPDATE webhook_endpoint_health AS h
    SET consecutive_failures = next.failures,
        open_until = CASE WHEN next.failures >= ${policy.threshold}::int
                          THEN now() + next.cooldown_ms * interval '1 millisecond' END,
        opened_at = CASE WHEN next.failures < ${policy.threshold}::int THEN NULL
                         WHEN next.open_until IS NULL THEN now() ELSE h.opened_at END
    FROM next
    WHERE h.endpoint_id = next.endpoint_id
    RETURNING next.failures AS failures, next.open_until IS NOT NULL AS was_open, h.open_until IS NOT NULL AS is_open,
              next.cooldown_ms AS cooldown_ms
  `.execute(db);
  const row = rows[0];
  if (!row?.is_open) return undefined;
  const change = { failures: row.failures, cooldownMs: Math.round(row.cooldown_ms) };
  return row.was_open ? { kind: "probe-failed", ...change } : { kind: "opened", ...change };
}
