// The delivery log's retention (PAYLINK_WEBHOOK_LOG_DAYS): delivered and failed deliveries older
// than the limit go, with their attempts; pending ones stay whatever their age. Both backends.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { loadConfig } from "../../src/config.ts";
import { deleteOldDeliveries } from "../../src/db/webhook-deliveries-repository.ts";
import { type TestDatabase, testBackends } from "../support/databases.ts";
import { addMerchantWithEndpoint, attemptRows, enqueue, sampleMessage, testKeyring } from "./support.ts";

for (const backend of testBackends()) {
  describe(`delivery log retention (${backend.name})`, () => {
    let database: TestDatabase;
    before(async () => {
      database = await backend.open();
    });
    after(() => database?.destroy());

    it("removes finished deliveries older than the limit with their attempts, in batches; keeps pending and recent ones", async () => {
      const db = database.db;
      const deliveryRow = (id: string) => db.selectFrom("webhook_deliveries").select("state").where("id", "=", id).executeTakeFirst();
      const { merchantId } = await addMerchantWithEndpoint(db, testKeyring(), "https://hooks.example/x");
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(...(await enqueue(db, merchantId, sampleMessage())));
      const [oldDelivered, oldFailed, oldPending, recentDelivered, oldDelivered2] = ids as [string, string, string, string, string];
      const age = async (id: string, days: number, state: string) => {
        await db
          .updateTable("webhook_deliveries")
          .set({ state, created_at: sql<Date>`now() - make_interval(days => ${days})` })
          .where("id", "=", id)
          .execute();
        await db.insertInto("webhook_attempts").values({ delivery_id: id, status_code: 200, latency_ms: 5 }).execute();
      };
      await age(oldDelivered, 91, "delivered");
      await age(oldFailed, 120, "failed");
      await age(oldPending, 200, "pending");
      await age(recentDelivered, 89, "delivered");
      await age(oldDelivered2, 95, "delivered");

      assert.equal(await deleteOldDeliveries(db, 90, 2), 3, "three in batches of two");
      for (const id of [oldDelivered, oldFailed, oldDelivered2]) {
        assert.equal(await deliveryRow(id), undefined, id);
        assert.deepEqual(await attemptRows(db, id), [], id);
      }
      assert.equal((await deliveryRow(oldPending))?.state, "pending", "still owed to the merchant");
      assert.equal((await attemptRows(db, oldPending)).length, 1);
      assert.equal((await deliveryRow(recentDelivered))?.state, "delivered");
      assert.equal(await deleteOldDeliveries(db, 90), 0, "nothing more to remove");
    });
  });
}

describe("PAYLINK_WEBHOOK_LOG_DAYS", () => {
  it("defaults to 90 days and must be a whole number of at least 1", () => {
    assert.equal(loadConfig({}).webhookLogDays, 90);
    assert.equal(loadConfig({ PAYLINK_WEBHOOK_LOG_DAYS: "30" }).webhookLogDays, 30);
    assert.throws(() => loadConfig({ PAYLINK_WEBHOOK_LOG_DAYS: "0" }), /PAYLINK_WEBHOOK_LOG_DAYS/);
    assert.throws(() => loadConfig({ PAYLINK_WEBHOOK_LOG_DAYS: "a month" }), /PAYLINK_WEBHOOK_LOG_DAYS/);
  });
});
