// A busy worker refreshes the delivery queue's statistics once the table has outgrown them (docs/decisions.md#queue-statements),
// so that the plans every session keeps for the worker's statements are made again for the table
// as it is now; a quiet one looks once a minute at most; a small table is left alone. Read from
// pg_class.reltuples, which ANALYZE sets and which stays -1 on a table never analysed (the test
// cluster runs without autovacuum; a table of a few dozen rows would not be analysed by it either).
// Real databases, a real receiver; the backlog is written straight into the table, as after an outage.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { sql } from "kysely";
import { silentLogger } from "../../src/webhooks/outcome.ts";
import { BUSY_SENDS, OUTGROWN_PAGES, QueueStatistics } from "../../src/webhooks/queue-statistics.ts";
import { testBackends } from "../support/databases.ts";
import { waitUntil } from "../support/wait.ts";
import { addMerchantWithEndpoint, testKeyring } from "./support.ts";
import { workerTestBed } from "./test-bed.ts";

for (const backend of testBackends()) {
  describe(`the queue's statistics (${backend.name})`, () => {
    const bed = workerTestBed(backend);

    const rowsAsAnalysed = async () => {
      const { rows } = await sql<{ reltuples: number }>`
        SELECT reltuples::float8 AS reltuples FROM pg_class WHERE relname = 'webhook_deliveries'`.execute(bed.db);
      return Number(rows[0]!.reltuples);
    };
    const delivered = async (merchantId: string, count: number) => {
      const { rows } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM webhook_deliveries WHERE state = 'delivered' AND merchant_id = ${merchantId}`.execute(bed.db);
      return rows[0]!.n >= count;
    };
    const backlog = async (merchantId: string, count: number) => {
      await sql`
        INSERT INTO webhook_deliveries (id, merchant_id, endpoint_id, event_type, payload)
        SELECT 'whd_' || merchant_id || '_' || g, merchant_id, id, 'Authorization', jsonb_build_object('amount', '100', 'currency', 'ISK', 'padding', repeat('x', 600))
        FROM webhook_endpoints, generate_series(1, ${count}::int) g WHERE merchant_id = ${merchantId}
      `.execute(bed.db);
    };

    test("are refreshed when a busy worker finds the table outgrown, and not for a trickle", async () => {
      const receiver = await bed.receiver();
      const { merchantId } = await addMerchantWithEndpoint(bed.db, testKeyring(), receiver.url);
      assert.equal(await rowsAsAnalysed(), -1, "a new table has never been analysed");

      const { wake } = bed.worker({ refreshStatistics: true });
      const trickle = BUSY_SENDS - 1;
      await bed.enqueueMany(merchantId, trickle);
      wake();
      await waitUntil(() => delivered(merchantId, trickle), 10_000, "the trickle delivered");
      assert.equal(await rowsAsAnalysed(), -1, "a trickle on a small table leaves the statistics alone");

      // About 700 bytes a row: well over OUTGROWN_PAGES of 8 KB.
      const outgrowing = OUTGROWN_PAGES * 16;
      await backlog(merchantId, outgrowing);
      wake();
      await waitUntil(async () => (await rowsAsAnalysed()) >= outgrowing, 20_000, "the statistics refreshed");
      await waitUntil(() => delivered(merchantId, trickle + outgrowing), 30_000, "the backlog delivered");
    });

    test("are refreshed by a quiet worker too, once a minute at most", async () => {
      const { merchantId } = await addMerchantWithEndpoint(bed.db, testKeyring(), "http://127.0.0.1:9/hooks");
      // Whatever the tests before left in the table, it grows past twice its size as last analysed.
      const outgrow = async () => {
        const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_deliveries`.execute(bed.db);
        const adding = 2 * rows[0]!.n + OUTGROWN_PAGES * 16;
        await sql`
          INSERT INTO webhook_deliveries (id, merchant_id, endpoint_id, event_type, payload)
          SELECT 'whd_' || gen_random_uuid(), merchant_id, id, 'Authorization', jsonb_build_object('padding', repeat('x', 600))
          FROM webhook_endpoints, generate_series(1, ${adding}::int) g WHERE merchant_id = ${merchantId}
        `.execute(bed.db);
        return rows[0]!.n + adding;
      };
      const statistics = new QueueStatistics(bed.db, silentLogger);
      const total = await outgrow();
      // One send in flight: its first look finds the table outgrown.
      statistics.whileSending(1);
      await waitUntil(async () => (await rowsAsAnalysed()) >= total, 20_000, "the statistics refreshed");
      const analysed = await rowsAsAnalysed();
      // Outgrown again at once: the next quiet look is a minute away.
      await outgrow();
      statistics.whileSending(1);
      statistics.whileSending(BUSY_SENDS - 1);
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(await rowsAsAnalysed(), analysed, "no second look within the minute");
    });

    test("are left alone without the option (the embedded database's default)", async () => {
      const receiver = await bed.receiver();
      const { merchantId } = await addMerchantWithEndpoint(bed.db, testKeyring(), receiver.url);
      const before = await rowsAsAnalysed();
      const { wake } = bed.worker();
      const outgrowing = OUTGROWN_PAGES * 16;
      await backlog(merchantId, outgrowing);
      wake();
      await waitUntil(() => delivered(merchantId, outgrowing), 30_000, "the backlog delivered");
      assert.equal(await rowsAsAnalysed(), before, "no ANALYZE without refreshStatistics");
    });
  });
}
