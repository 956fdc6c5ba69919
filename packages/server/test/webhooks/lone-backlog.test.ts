// A lone endpoint's backlog may use the worker's idle slots (docs/webhooks.md#fairness-between-endpoints,
// docs/decisions.md#leases-and-fair-shares): above the fair cap of 4 while no other endpoint has due work, never more than 16 − 4, and
// a newcomer's message is sent at once, not after the backlog. Real databases, real receivers on
// 127.0.0.1; the bounds are counts of sends, not times.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { testBackends } from "../support/databases.ts";
import { waitUntil } from "../support/wait.ts";
import { startHangingReceiver } from "./receivers.ts";
import { addMerchantWithEndpoint, enqueue, sampleMessage, startReceiver, testKeyring } from "./support.ts";
import { workerTestBed } from "./test-bed.ts";

const keyring = testKeyring();
/** The production defaults: 16 sends at once, a fair share of 4 per endpoint. */
const CONCURRENCY = 16;
const FAIR_SHARE = 4;
const ALONE_CAP = CONCURRENCY - FAIR_SHARE;

for (const backend of testBackends()) {
  describe(`a lone endpoint's backlog (${backend.name})`, () => {
    const bed = workerTestBed(backend, { disableEndpointsAfterEach: true });
    const { worker, enqueueMany } = bed;
    async function allDelivered(ids: string[]): Promise<boolean> {
      const rows = await bed.db.selectFrom("webhook_deliveries").select("state").where("id", "in", ids).execute();
      return rows.length === ids.length && rows.every((row) => row.state === "delivered");
    }

    test("a lone backlog holds every slot but a fair share, and a newcomer's message is sent while all of it hangs", async () => {
      const hanging = await startHangingReceiver();
      bed.later(() => hanging.close());
      const a = await addMerchantWithEndpoint(bed.db, keyring, hanging.url);
      const ids = await enqueueMany(a.merchantId, 60);
      const hookB = await startReceiver();
      bed.later(() => hookB.close());
      const b = await addMerchantWithEndpoint(bed.db, keyring, hookB.url);
      const { wake } = worker();
      wake();
      await waitUntil(async () => hanging.open >= ALONE_CAP, 10_000, `A's endpoint holding ${ALONE_CAP} sends`);

      await enqueue(bed.db, b.merchantId, sampleMessage());
      wake();
      await hookB.waitFor(1, 9_000);
      // Not one of A's sends had ended (they hang until answered, or 10 s): B was not queued behind A.
      assert.equal(hanging.requests.length, ALONE_CAP, "A got no send beyond its cap meanwhile");
      assert.equal(hanging.open, ALONE_CAP, "every send of A was still hanging when B's arrived");
      assert.equal(hanging.peak, ALONE_CAP, `A never had more than ${ALONE_CAP} sends in flight`);

      hanging.recover();
      hanging.answerHeld();
      await waitUntil(() => allDelivered(ids), 30_000, "A's backlog delivered");
      const sent = hanging.requests.map((request) => request.webhookId);
      assert.deepEqual([...sent].sort(), [...ids].sort(), "each of A's deliveries sent exactly once");
    });

    test("a backlog drained above the fair cap lets a newcomer through within the sends already in flight", async () => {
      let open = 0;
      let peak = 0;
      const hookA = await startReceiver(() => {
        open += 1;
        peak = Math.max(peak, open);
        setTimeout(() => {
          open -= 1;
        }, 50);
        return { status: 200, delayMs: 50 };
      });
      bed.later(() => hookA.close());
      const a = await addMerchantWithEndpoint(bed.db, keyring, hookA.url);
      const ids = await enqueueMany(a.merchantId, 400);
      const hookB = await startReceiver();
      bed.later(() => hookB.close());
      const b = await addMerchantWithEndpoint(bed.db, keyring, hookB.url);
      const { wake } = worker();
      wake();
      await hookA.waitFor(40, 30_000);
      assert.ok(peak > FAIR_SHARE && peak <= ALONE_CAP, `alone, A had ${peak} sends at once (fair share ${FAIR_SHARE}, cap ${ALONE_CAP})`);

      const sentBefore = hookA.requests.length;
      await enqueue(bed.db, b.merchantId, sampleMessage());
      wake();
      await hookB.waitFor(1, 30_000);
      const sentMeanwhile = hookA.requests.length - sentBefore;
      // A's leases never exceed 12: those in flight when B was queued, and one claim's refill that
      // had not seen B yet, may arrive first; nothing of the other 300-odd.
      assert.ok(sentMeanwhile <= 2 * ALONE_CAP, `${sentMeanwhile} of A's were sent before B's (bound ${2 * ALONE_CAP})`);
      assert.ok(hookA.requests.length < ids.length, "B did not wait for A's backlog");

      await waitUntil(() => allDelivered(ids), 60_000, "A's backlog delivered");
      assert.ok(peak <= ALONE_CAP, `A had ${peak} sends at once`);
      const sent = hookA.requests.map((request) => String(request.headers["webhook-id"]));
      assert.equal(new Set(sent).size, ids.length, "each of A's deliveries sent exactly once");
      assert.equal(sent.length, ids.length);
    });
  });
}
