// The webhook outbox as the checkout tests see it: an endpoint row for the merchant, so that a
// payment queues its messages, and the queued messages read back.
import type { TestServer } from "./harness.ts";

type MerchantOnDatabase = Pick<TestServer, "database" | "merchantId">;

/** Inserts an enabled webhook endpoint for the merchant, so the outbox writes rows for it. */
export async function addWebhookEndpoint(server: MerchantOnDatabase): Promise<string> {
  const id = `whe_test_${Math.random().toString(36).slice(2, 10)}`;
  await server.database.db
    .insertInto("webhook_endpoints")
    .values({ id, merchant_id: server.merchantId, url: "http://127.0.0.1:9/hook", api_key: "test-api-key", hmac_key: "00".repeat(32) })
    .execute();
  return id;
}

/** The outbox rows of the merchant, oldest first. */
export async function outboxMessages(server: MerchantOnDatabase): Promise<Array<{ eventType: string; payload: any }>> {
  const rows = await server.database.db
    .selectFrom("webhook_deliveries")
    .select(["event_type", "payload", "created_at", "id"])
    .where("merchant_id", "=", server.merchantId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map((row) => ({
    eventType: row.event_type,
    payload: typeof row.payload === "string" ? JSON.parse(row.payload) : row.payload,
  }));
}
