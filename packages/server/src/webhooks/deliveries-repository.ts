// The delivery queue (webhook_deliveries) and its log (webhook_attempts): how workers claim due
// messages, how an attempt's outcome is recorded, and what the admin API and portal read.
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import type { Database } from "../db/connect.ts";
import { pageTotal, WINDOW_TOTAL } from "../db/page-total.ts";
import type { UnsignedPaymentMessage, WebhookEventType } from "./outbox.ts";

export type DeliveryState = "pending" | "delivered" | "failed";

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

export interface DeliveryAttempt {
  attemptedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  responseExcerpt: string | null;
  error: string | null;
}

export interface Delivery {
  deliveryId: string;
  webhookId: string;
  url: string;
  eventType: string;
  state: DeliveryState;
  /** The message as queued, without hmacSignature (computed at each send with the current key). */
  message: UnsignedPaymentMessage;
  createdAt: Date;
  deliveredAt: Date | null;
  /** When the next attempt is due (pending deliveries only). */
  nextAttemptAt: Date | null;
  lastStatusCode: number | null;
  /** Every attempt ever made, oldest first (resends included). */
  attempts: DeliveryAttempt[];
}

export async function listDeliveries(
  db: Database,
  merchantId: string,
  filter: { webhookId?: string | undefined; state?: DeliveryState | undefined },
  page: { offset: number; limit: number },
): Promise<{ deliveries: Delivery[]; totalCount: number }> {
  let query = db
    .selectFrom("webhook_deliveries as d")
    .innerJoin("webhook_endpoints as e", "e.id", "d.endpoint_id")
    .where("d.merchant_id", "=", merchantId);
  if (filter.webhookId !== undefined) query = query.where("d.endpoint_id", "=", filter.webhookId);
  if (filter.state !== undefined) query = query.where("d.state", "=", filter.state);

  const rows = await query
    .select([
      "d.id",
      "d.endpoint_id",
      "e.url",
      "d.event_type",
      "d.state",
      "d.payload",
      "d.created_at",
      "d.delivered_at",
      "d.next_attempt_at",
      "d.last_status_code",
    ])
    .select(WINDOW_TOTAL)
    .orderBy("d.created_at", "desc")
    .orderBy("d.id", "desc")
    .offset(page.offset)
    .limit(page.limit)
    .execute();
  const totalCount = await pageTotal(rows, () => query.select((eb) => eb.fn.countAll<string>().as("count")).executeTakeFirstOrThrow());
  const attempts = new Map<string, DeliveryAttempt[]>();
  if (rows.length > 0) {
    const attemptRows = await db
      .selectFrom("webhook_attempts")
      .selectAll()
      .where(
        "delivery_id",
        "in",
        rows.map((row) => row.id),
      )
      .orderBy("attempted_at")
      .orderBy("id")
      .execute();
    for (const row of attemptRows) {
      const list = attempts.get(row.delivery_id) ?? [];
      list.push({
        attemptedAt: row.attempted_at,
        statusCode: row.status_code,
        latencyMs: row.latency_ms,
        responseExcerpt: row.response_excerpt,
        error: row.error,
      });
      attempts.set(row.delivery_id, list);
    }
  }
  return {
    totalCount,
    deliveries: rows.map((row) => ({
      deliveryId: row.id,
      webhookId: row.endpoint_id,
      url: row.url,
      eventType: row.event_type,
      state: row.state as DeliveryState,
      message: row.payload as UnsignedPaymentMessage,
      createdAt: row.created_at,
      deliveredAt: row.delivered_at,
      nextAttemptAt: row.state === "pending" ? row.next_attempt_at : null,
      lastStatusCode: row.last_status_code,
      attempts: attempts.get(row.id) ?? [],
    })),
  };
}

/**
 * Sends a delivery again by hand: pending, due now, a fresh retry schedule, the same webhook-id.
 * Works on delivered and failed messages alike (a receiver may have lost one it acknowledged).
 * A delivery being sent at this moment is left alone ("in-flight"): its outcome is about to be
 * recorded and would overwrite the reset.
 */
export async function resendDelivery(db: Database, merchantId: string, deliveryId: string): Promise<"resent" | "not-found" | "in-flight"> {
  const result = await db
    .updateTable("webhook_deliveries")
    .set({ state: "pending", attempt_count: 0, next_attempt_at: sql`now()`, delivered_at: null, lease_until: null, lease_token: null })
    .where("id", "=", deliveryId)
    .where("merchant_id", "=", merchantId)
    .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", sql<Date>`now()`)]))
    .executeTakeFirst();
  if (result.numUpdatedRows > 0n) return "resent";
  const exists = await db
    .selectFrom("webhook_deliveries")
    .select("id")
    .where("id", "=", deliveryId)
    .where("merchant_id", "=", merchantId)
    .executeTakeFirst();
  return exists ? "in-flight" : "not-found";
}

/**
 * The delivery log is kept for `retentionDays` (PAYLINK_WEBHOOK_LOG_DAYS): delivered and failed
 * deliveries older than that go, with their attempts. Pending ones stay whatever their age — they
 * are still owed to the merchant. Batches keep each transaction short on a large log.
 */
export async function deleteOldDeliveries(db: Database, retentionDays: number, batchSize = 1000): Promise<number> {
  let deleted = 0;
  for (;;) {
    const removed = await db.transaction().execute(async (trx) => {
      const ids = (
        await trx
          .selectFrom("webhook_deliveries")
          .select("id")
          .where("state", "<>", "pending")
          .where("created_at", "<", sql<Date>`now() - make_interval(days => ${retentionDays})`)
          .limit(batchSize)
          .forUpdate()
          .skipLocked()
          .execute()
      ).map((row) => row.id);
      if (ids.length === 0) return 0;
      await trx.deleteFrom("webhook_attempts").where("delivery_id", "in", ids).execute();
      await trx.deleteFrom("webhook_deliveries").where("id", "in", ids).where("state", "<>", "pending").execute();
      return ids.length;
    });
    deleted += removed;
    if (removed < batchSize) return deleted;
  }
}
