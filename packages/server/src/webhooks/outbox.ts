// The transactional outbox (docs/webhooks.md#delivery-and-retries). Callers pass their open
// transaction, so the webhook rows commit or vanish together with the payment result.
import { EventEmitter } from "node:events";
import { type Kysely, type RawBuilder, sql } from "kysely";
import type { DB } from "../db/schema.ts";
import { newDeliveryIdSql } from "../ids.ts";

/**
 * Authorization and Tokenization from the checkout; Refund, TokenDisabled, Capture and Adjustment
 * after the sale; Dispute, only to endpoints that asked for it (docs/webhooks.md).
 */
export type WebhookEventType = "Authorization" | "Tokenization" | "Refund" | "TokenDisabled" | "Capture" | "Adjustment" | "Dispute";

/** The message of docs/webhooks.md#the-message (all values strings) before signing; hmacSignature is added at send time. */
export interface UnsignedPaymentMessage {
  checkoutReference: string | null;
  payfacReference: string;
  merchantReference: string | null;
  amount: string;
  currency: string;
  reason: string | null;
  success: string;
  additionalData?: Record<string, string>;
}

/**
 * One delivery of each event per enabled endpoint of the merchant, as one INSERT: a statement of
 * its own, or a step of the statement that writes the result (`onlyIf` one of its conditions), so
 * the webhook rows commit or vanish with it. A Dispute goes only to endpoints that opted in: the
 * live gateway's receivers refuse event types they do not know.
 */
export function outboxInsertSql(
  merchantId: string,
  events: ReadonlyArray<{ eventType: string; message: unknown }>,
  onlyIf: RawBuilder<unknown> = sql`true`,
): RawBuilder<unknown> {
  return sql`INSERT INTO webhook_deliveries (id, merchant_id, endpoint_id, event_type, payload)
      SELECT ${newDeliveryIdSql}, w.merchant_id, w.id, e.event ->> 'eventType', e.event -> 'message'
      FROM webhook_endpoints w CROSS JOIN jsonb_array_elements(${JSON.stringify(events)}::jsonb) AS e(event)
      WHERE w.merchant_id = ${merchantId} AND w.enabled AND (w.dispute_events OR e.event ->> 'eventType' <> 'Dispute') AND ${onlyIf}`;
}

/** Writes one delivery per enabled endpoint of the merchant. Returns how many. */
export async function enqueuePaymentWebhook(
  trx: Kysely<DB>,
  merchantId: string,
  eventType: WebhookEventType,
  message: UnsignedPaymentMessage,
): Promise<number> {
  const result = await outboxInsertSql(merchantId, [{ eventType, message }]).execute(trx);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Wakes this process's delivery worker right after a commit, so a webhook leaves at once
 * instead of at the next poll. Other instances find the rows on their own poll.
 */
export const webhookSignal = new EventEmitter();
export function notifyWebhookWorker(): void {
  webhookSignal.emit("wake");
}
