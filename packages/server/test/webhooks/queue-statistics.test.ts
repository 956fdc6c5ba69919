// A backlog makes the worker refresh the delivery queue's statistics (D-263), so that the plans every
// session keeps for the worker's statements are made again for the table as it is now; a trickle
// does not. Read from pg_class.reltuples, which ANALYZE sets and which stays -1 on a table never
// analysed (autovacuum leaves a table of a few dozen rows alone). Real databases, a real receiver.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { sql } from "kysely";
import { BACKLOG_CLAIM } from "../../src/webhooks/queue-statistics.ts";
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
    const delivered = async (count: number) => {
      const { rows } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM webhook_deliveries WHERE state = 'delivered'`.execute(bed.db);
      return rows[0]!.n >= count;
    };

    test("are refreshed when a claim meets a backlog, and not for a trickle", async () => {
      const receiver = await bed.receiver();
      const { merchantId } = await addMerchantWithEndpoint(bed.db, testKeyring(), receiver.url);
      assert.equal(await rowsAsAnalysed(), -1, "a new table has never been analysed");

      const { wake } = bed.worker();
      const trickle = BACKLOG_CLAIM - 1;
      await bed.enqueueMany(merchantId, trickle);
      wake();
      await waitUntil(() => delivered(trickle), 10_000, "the trickle delivered");
      assert.equal(await rowsAsAnalysed(), -1, "a claim of fewer than a backlog's deliveries leaves the statistics alone");

      const backlog = 3 * BACKLOG_CLAIM;
      await bed.enqueueMany(merchantId, backlog);
      wake();
      await waitUntil(() => delivered(trickle + backlog), 10_000, "the backlog delivered");
      await waitUntil(async () => (await rowsAsAnalysed()) >= backlog, 5_000, "the statistics refreshed");
    });
  });
}
