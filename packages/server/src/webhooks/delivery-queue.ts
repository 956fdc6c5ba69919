// The delivery queue (webhook_deliveries), as the workers see it: claim due messages under a
// lease, record an attempt's outcome with the next state, or hand a lease back.
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import type { Database } from "../db/connect.ts";
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
}

/**
 * Leases up to `limit` due deliveries of enabled endpoints for `leaseMs`. Rows another worker is
 * claiming right now are skipped (SKIP LOCKED), and rows under a live lease are not due, so two
 * workers never hold one delivery at once; a lease that ran out (its worker died) makes the row
 * due again. The next due time and the lease use the database clock, shared by all instances.
 */
export async function claimDueDeliveries(db: Database, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
  const leaseToken = randomUUID();
  const { rows } = await sql<{
    id: string;
    merchant_id: string;
    endpoint_id: string;
    event_type: string;
    payload: UnsignedPaymentMessage;
    attempt_count: number;
    url: string;
    api_key: string;
    hmac_key: string;
  }>`
    WITH due AS (
      SELECT d.id
      FROM webhook_deliveries d
      JOIN webhook_endpoints e ON e.id = d.endpoint_id
      WHERE d.state = 'pending'
        AND d.next_attempt_at <= now()
        AND (d.lease_until IS NULL OR d.lease_until < now())
        AND e.enabled
      ORDER BY d.next_attempt_at
      LIMIT ${limit}
      FOR UPDATE OF d SKIP LOCKED
    )
    UPDATE webhook_deliveries AS w
    SET lease_until = now() + ${leaseMs}::double precision * interval '1 millisecond',
        lease_token = ${leaseToken}
    FROM due, webhook_endpoints AS e
    WHERE w.id = due.id AND e.id = w.endpoint_id
    RETURNING w.id, w.merchant_id, w.endpoint_id, w.event_type, w.payload, w.attempt_count, e.url, e.api_key, e.hmac_key
  `.execute(db);
  return rows.map((row) => ({
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
  }));
}

export interface AttemptRecord {
  attemptedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  responseExcerpt: string | null;
  error: string | null;
  /** delivered: a 2xx; retry: pending again after `retryDelayMs`; failed: the schedule is exhausted. */
  next: { state: "delivered" } | { state: "retry"; retryDelayMs: number } | { state: "failed" };
}

/**
 * Logs the attempt and moves the delivery on, in one short transaction. The state changes only
 * while the lease token is still ours: a worker that stalled past its lease (and whose delivery
 * another worker took over) still logs what happened, but no longer decides the state.
 * Returns whether the state was changed.
 */
export async function recordAttempt(
  db: Database,
  claim: Pick<ClaimedDelivery, "id" | "leaseToken">,
  attempt: AttemptRecord,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const next = attempt.next;
    const update = await trx
      .updateTable("webhook_deliveries")
      .set({
        attempt_count: sql`attempt_count + 1`,
        last_status_code: attempt.statusCode,
        lease_until: null,
        lease_token: null,
        ...(next.state === "delivered"
          ? { state: "delivered", delivered_at: sql`now()` }
          : next.state === "failed"
            ? { state: "failed" }
            : { state: "pending", next_attempt_at: sql`now() + ${next.retryDelayMs}::double precision * interval '1 millisecond'` }),
      })
      .where("id", "=", claim.id)
      .where("lease_token", "=", claim.leaseToken)
      .executeTakeFirst();
    await trx
      .insertInto("webhook_attempts")
      .values({
        delivery_id: claim.id,
        attempted_at: attempt.attemptedAt,
        status_code: attempt.statusCode,
        latency_ms: attempt.latencyMs,
        response_excerpt: attempt.responseExcerpt,
        error: attempt.error,
      })
      .execute();
    return update.numUpdatedRows > 0n;
  });
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
