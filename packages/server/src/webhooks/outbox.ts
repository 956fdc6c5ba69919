// The transactional outbox (docs/webhooks.md#delivery-and-retries). Callers pass their open
// transaction, so the webhook rows commit or vanish together with the payment result.
import { EventEmitter } from "node:events";
import { type Kysely, sql } from "kysely";
import type { DB } from "../db/schema.ts";
import { newDeliveryIdSql } from "../ids.ts";

/** Authorization and Tokenization from the checkout; Refund and TokenDisabled after the sale (docs/webhooks.md). */
export type WebhookEventType = "Authorization" | "Tokenization" | "Refund" | "TokenDisabled";

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

/** Writes one delivery per enabled endpoint of the merchant. Returns how many. */
export async function enqueuePaymentWebhook(
  trx: Kysely<DB>,
  merchantId: string,
  eventType: WebhookEventType,
  message: UnsignedPaymentMessage,
): Promise<number> {
  const result = await sql`
    INSERT INTO webhook_deliveries (id, merchant_id, endpoint_id, event_type, payload)
    SELECT ${newDeliveryIdSql}, merchant_id, id, ${eventType}, ${JSON.stringify(message)}::jsonb
    FROM webhook_endpoints
    WHERE merchant_id = ${merchantId} AND enabled
  `.execute(trx);
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
