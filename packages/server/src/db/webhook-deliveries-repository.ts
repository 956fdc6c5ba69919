// The delivery log, as merchants and operators see it: every delivery with every attempt, a
// resend, and the retention clean-up of old finished deliveries.
import { sql } from "kysely";
import type { UnsignedPaymentMessage } from "../webhooks/outbox.ts";
import type { Database } from "./connect.ts";
import { pageTotal, WINDOW_TOTAL } from "./page-total.ts";

export type DeliveryState = "pending" | "delivered" | "failed";

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
