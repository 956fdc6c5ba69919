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
}

/**
 * Logs the attempt, moves the delivery on and updates the endpoint's breaker, in one short
 * transaction. The state changes only while the lease token is still ours: a worker that stalled
 * past its lease (and whose delivery another worker took over) still logs what happened, and its
 * verdict on the endpoint still counts, but it no longer decides the delivery's state.
 */
export async function recordAttempt(
  db: Database,
  claim: Pick<ClaimedDelivery, "id" | "leaseToken"> & Partial<Pick<ClaimedDelivery, "endpointId" | "probe">>,
  attempt: AttemptRecord,
  breaker: BreakerPolicy = DEFAULT_BREAKER_POLICY,
): Promise<RecordedAttempt> {
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
    const change = claim.endpointId
      ? await recordEndpointVerdict(trx, claim.endpointId, attempt.verdict, claim.probe ?? false, breaker)
      : undefined;
    return { owned: update.numUpdatedRows > 0n, ...(change ? { breaker: change } : {}) };
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
