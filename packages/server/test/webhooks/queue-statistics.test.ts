// A busy worker refreshes the delivery queue's statistics once the table has outgrown them (D-263),
// so that the plans every session keeps for the worker's statements are made again for the table
// as it is now; a trickle is left alone. Read from
// pg_class.reltuples, which ANALYZE sets and which stays -1 on a table never analysed (the test
// cluster runs without autovacuum; a table of a few dozen rows would not be analysed by it either).
// Real databases, a real receiver; the backlog is written straight into the table, as after an outage.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { sql } from "kysely";
import { BUSY_SENDS, OUTGROWN_PAGES } from "../../src/webhooks/queue-statistics.ts";
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
      assert.equal(await rowsAsAnalysed(), -1, "fewer sends in flight than a busy worker's leave the statistics alone");

      // About 700 bytes a row: well over OUTGROWN_PAGES of 8 KB.
      const outgrowing = OUTGROWN_PAGES * 16;
      await backlog(merchantId, outgrowing);
      wake();
      await waitUntil(async () => (await rowsAsAnalysed()) >= outgrowing, 20_000, "the statistics refreshed");
      await waitUntil(() => delivered(merchantId, trickle + outgrowing), 30_000, "the backlog delivered");
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
