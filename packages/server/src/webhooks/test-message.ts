// "Send a test message" (docs/portal.md#developers): one delivery of event type `Test` to one
// endpoint, signed and retried like any payment message, so a merchant can check the receiver's
// URL, Authorization and signature check before the first real payment.
import { sql } from "kysely";
import type { Database } from "../db/connect.ts";
import { newDeliveryIdSql, newUpperAlnum } from "../ids.ts";
import { notifyWebhookWorker, type UnsignedPaymentMessage } from "./outbox.ts";

export async function enqueueTestMessage(db: Database, merchantId: string, webhookId: string): Promise<string | undefined> {
  const message: UnsignedPaymentMessage = {
    checkoutReference: null,
    payfacReference: `TEST${newUpperAlnum(12)}`,
    merchantReference: null,
    amount: "0",
    currency: "ISK",
    reason: null,
    success: "true",
    additionalData: { eventType: "Test" },
  };
  const result = await sql<{ id: string }>`
    INSERT INTO webhook_deliveries (id, merchant_id, endpoint_id, event_type, payload)
    SELECT ${newDeliveryIdSql}, merchant_id, id, 'Test', ${JSON.stringify(message)}::jsonb
    FROM webhook_endpoints
    WHERE id = ${webhookId} AND merchant_id = ${merchantId}
    RETURNING id
  `.execute(db);
  const id = result.rows[0]?.id;
  if (id) notifyWebhookWorker();
  return id;
}
