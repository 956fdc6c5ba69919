// The delivery queue (webhook_deliveries), as the workers see it: claim due messages under a
// lease (claim.ts), record an attempt's outcome with the next state, or hand a lease back.
import { sql } from "kysely";
import type { Database } from "../db/connect.ts";
import { type BreakerChange, type BreakerPolicy, DEFAULT_BREAKER_POLICY, type EndpointVerdict, recordEndpointVerdict } from "./breaker.ts";
import type { UnsignedPaymentMessage, WebhookEventType } from "./outbox.ts";

/** A delivery a worker has leased: everything needed to send it, secrets still encrypted. */
export interface ClaimedDelivery {
  id: string;
  merchantId: string;
  endpointId: string;
  eventType: WebhookEventType;
  payload: UnsignedPaymentMessage;
  /** Attempts made before this one (in the current round; a resend starts a new round). */
  attemptCount: number;
  leaseToken: string;
  url: string;
  encryptedApiKey: string;
  encryptedHmacKey: string;
  /** Sent as the probe of an endpoint whose breaker is open (breaker.ts). */
  probe: boolean;
  /** The endpoint's breaker was closed with no failure counted when this was claimed. */
  breakerClean: boolean;
}

/** A claimed or handed-over row, as the statements return it. */
export interface LeasedRow {
  id: string;
  merchant_id: string;
  endpoint_id: string;
  event_type: string;
  payload: UnsignedPaymentMessage;
  attempt_count: number;
  url: string;
  api_key: string;
  hmac_key: string;
  probe: boolean;
  clean: boolean;
}

export function leasedDelivery(row: LeasedRow, leaseToken: string): ClaimedDelivery {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    endpointId: row.endpoint_id,
    eventType: row.event_type as WebhookEventType,
    payload: row.payload,
    attemptCount: row.attempt_count,
    leaseToken,
    url: row.url,
    encryptedApiKey: row.api_key,
    encryptedHmacKey: row.hmac_key,
    probe: row.probe,
    breakerClean: row.clean,
  };
}

export interface AttemptRecord {
  attemptedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  responseExcerpt: string | null;
  error: string | null;
  /** delivered: a 2xx; retry: pending again after `retryDelayMs`; failed: the schedule is exhausted. */
  next: { state: "delivered" } | { state: "retry"; retryDelayMs: number } | { state: "failed" };
  /** What the attempt says about the endpoint, for its circuit breaker (undefined: nothing). */
  verdict?: EndpointVerdict;
}

export interface RecordedAttempt {
  /** The state was changed: the lease was still ours. */
  owned: boolean;
  /** The endpoint's breaker opened, stayed open after a probe, or closed. */
  breaker?: BreakerChange;
  /** Updating the breaker failed (the attempt itself is recorded): it misses this one verdict. */
  breakerError?: unknown;
}

/**
 * Logs the attempt and moves the delivery on, in one statement (atomic without a transaction: one
 * round trip per delivery, which matters when one endpoint's sends are claimed one by one under
 * its cap), then updates the endpoint's breaker when the attempt says something new about it.
 * The state changes only while the lease token is still ours: a worker that stalled past its lease
 * (and whose delivery another worker took over) still logs what happened, and its verdict on the
 * endpoint still counts, but it no longer decides the delivery's state.
 */
export async function recordAttempt(
  db: Database,
  claim: Pick<ClaimedDelivery, "id" | "leaseToken"> & Partial<Pick<ClaimedDelivery, "endpointId" | "probe" | "breakerClean">>,
  attempt: AttemptRecord,
  /** null: the caller has updated the breaker already. */
  breaker: BreakerPolicy | null = DEFAULT_BREAKER_POLICY,
): Promise<RecordedAttempt> {
  const breakerUpdate = breaker ? await updateBreaker(db, claim, attempt, breaker) : {};
  const next = attempt.next;
  const nextState =
    next.state === "delivered"
      ? sql`state = 'delivered', delivered_at = now()`
      : next.state === "failed"
        ? sql`state = 'failed'`
        : sql`state = 'pending', next_attempt_at = now() + ${next.retryDelayMs}::double precision * interval '1 millisecond'`;
  const { rows } = await sql<{ owned: number }>`
    WITH updated AS (
      UPDATE webhook_deliveries
      SET attempt_count = attempt_count + 1, last_status_code = ${attempt.statusCode},
          lease_until = NULL, lease_token = NULL, ${nextState}
      WHERE id = ${claim.id} AND lease_token = ${claim.leaseToken}
      RETURNING id
    ),
    -- Once: a retry after a statement that committed but whose answer was lost (a dropped
    -- connection) finds the attempt already logged (webhook_attempts_by_delivery), and then the
    -- lease was ours when that statement ran: the statement sees only rows committed before it, so
    -- the count below finds the attempt only when an earlier try logged it.
    logged AS (
      INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, latency_ms, response_excerpt, error)
      SELECT ${claim.id}, ${attempt.attemptedAt}, ${attempt.statusCode}, ${attempt.latencyMs}, ${attempt.responseExcerpt}, ${attempt.error}
      WHERE NOT EXISTS (SELECT 1 FROM webhook_attempts WHERE delivery_id = ${claim.id} AND attempted_at = ${attempt.attemptedAt})
    )
    SELECT (SELECT count(*) FROM updated)::int
           + (SELECT count(*) FROM webhook_attempts WHERE delivery_id = ${claim.id} AND attempted_at = ${attempt.attemptedAt})::int
           AS owned
  `.execute(db);
  return { owned: Number(rows[0]?.owned ?? 0) > 0, ...breakerUpdate };
}

/**
 * The endpoint's breaker, updated before the delivery's row is (recordAttempt, and the hand-over).
 * Never throws: the attempt must still be recorded, or it would be sent again after its lease.
 */
export async function updateBreaker(
  db: Database,
  claim: Partial<Pick<ClaimedDelivery, "endpointId" | "probe" | "breakerClean">>,
  attempt: Pick<AttemptRecord, "verdict">,
  breaker: BreakerPolicy,
): Promise<Pick<RecordedAttempt, "breaker" | "breakerError">> {
  // The breaker first, the delivery's row second: a failed probe reopens the breaker while its
  // lease still holds the endpoint's one probe slot, so no claim between the two statements can
  // send a second probe at once instead of after the cool-down. An answer from an endpoint that had
  // nothing counted when claimed leaves its breaker as it is, saving a statement per delivery. The
  // cost: a failure recorded by another send meanwhile is not reset by this answer, only by the
  // next one; the count can run at most the sends in flight (4) ahead of "in a row", and a probe
  // closes a breaker opened that way.
  const unchanged = attempt.verdict === "answered" && claim.breakerClean;
  let breakerUpdate: Pick<RecordedAttempt, "breaker" | "breakerError"> = {};
  if (claim.endpointId && !unchanged) {
    try {
      const change = await recordEndpointVerdict(db, claim.endpointId, attempt.verdict, claim.probe ?? false, breaker);
      if (change) breakerUpdate = { breaker: change };
    } catch (error) {
      breakerUpdate = { breakerError: error };
    }
  }
  return breakerUpdate;
}

/** Gives a claimed delivery back untouched (worker shutdown), so another worker may send it at once. */
export async function releaseLease(db: Database, claim: Pick<ClaimedDelivery, "id" | "leaseToken">): Promise<void> {
  await db
    .updateTable("webhook_deliveries")
    .set({ lease_until: null, lease_token: null })
    .where("id", "=", claim.id)
    .where("lease_token", "=", claim.leaseToken)
    .execute();
}
