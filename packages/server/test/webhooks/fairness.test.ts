// One merchant's dead webhook endpoint must not delay the others (issue #12, docs/webhooks.md#fairness-between-endpoints):
// fair claiming with a cap on sends in flight per endpoint, over every worker on the database, and
// a circuit breaker that holds a silent endpoint's deliveries (pending, their schedule untouched)
// and lets them all through once it answers again. Real databases, real receivers on 127.0.0.1.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import Fastify from "fastify";
import { registerMetrics } from "../../src/http/metrics.ts";
import type { WorkerLogger } from "../../src/webhooks/worker.ts";
import { testBackends } from "../support/databases.ts";
import { waitUntil } from "../support/wait.ts";
import { addMerchantWithEndpoint, enqueue, sampleMessage, testKeyring } from "./support.ts";
import { workerTestBed } from "./test-bed.ts";

const keyring = testKeyring();

for (const backend of testBackends()) {
  describe(`webhook fairness (${backend.name})`, () => {
    const bed = workerTestBed(backend, { disableEndpointsAfterEach: true });
    const { worker, receiver, hangingReceiver, enqueueMany } = bed;
    async function deliveries(ids: string[]) {
      return bed.db.selectFrom("webhook_deliveries").select(["id", "state", "attempt_count"]).where("id", "in", ids).execute();
    }

    test("noisy neighbour: with 500 deliveries to merchant A's hanging endpoint in flight, merchant B's webhook arrives within 1 s", async (t) => {
      const hanging = await hangingReceiver();
      const a = await addMerchantWithEndpoint(bed.db, keyring, hanging.url);
      await enqueueMany(a.merchantId, 500);
      const hookB = await receiver();
      const b = await addMerchantWithEndpoint(bed.db, keyring, hookB.url);
      // The production defaults: 16 sends at once, 10 s to answer, 4 in flight per endpoint while
      // another endpoint waits, 16 − 4 while A is alone (docs/decisions.md#leases-and-fair-shares).
      const { wake } = worker();
      wake();
      // A's sends fill every slot it may take and hang there, as they did when B waited 19.5 s.
      await waitUntil(async () => hanging.open >= 12, 10_000, "A's endpoint holding sends in flight");

      const started = Date.now();
      await enqueue(bed.db, b.merchantId, sampleMessage());
      wake();
      const [request] = await hookB.waitFor(1, 15_000);
      const latencyMs = request!.receivedAt - started;
      t.diagnostic(`B's webhook arrived ${latencyMs} ms after B's payment; A's sends in flight: ${hanging.open}`);
      assert.ok(latencyMs < 1000, `B waited ${latencyMs} ms`);
      assert.equal(hanging.peak, 12, "A never had more than 16 − 4 sends in flight");
    });

    test("the cap on sends in flight per endpoint holds across two workers", async () => {
      let open = 0;
      let peak = 0;
      const hook = await receiver(() => {
        open += 1;
        peak = Math.max(peak, open);
        setTimeout(() => {
          open -= 1;
        }, 150);
        return { status: 200, delayMs: 150 };
      });
      const fixture = await addMerchantWithEndpoint(bed.db, keyring, hook.url);
      const ids = await enqueueMany(fixture.merchantId, 30);
      const first = worker({ concurrency: 8, perEndpointConcurrency: 3 });
      const second = worker({ concurrency: 8, perEndpointConcurrency: 3 });
      first.wake();
      second.wake();
      // A generous bound against hangs only (about 3 s when the machine is quiet): under the cap the
      // deliveries are claimed one freed slot at a time, and this machine is shared.
      await hook.waitFor(30, 60_000);
      await waitUntil(async () => (await deliveries(ids)).every((row) => row.state === "delivered"), 10_000, "all 30 recorded");
      await Promise.all([first.instance.stop(5000), second.instance.stop(5000)]);
      // Alone, the endpoint may have 8 − 3 in flight (docs/decisions.md#leases-and-fair-shares), counted over both workers' leases.
      assert.equal(peak, 5, `at most 5 at once at the receiver, and the cap was used (peak ${peak})`);
      const seen = hook.requests.map((request) => String(request.headers["webhook-id"]));
      assert.deepEqual([...seen].sort(), [...ids].sort(), "each delivery sent exactly once");
    });

    test("the breaker opens after repeated time-outs, holds A's deliveries pending, and lets every one through once A answers", async () => {
      const hanging = await hangingReceiver();
      const a = await addMerchantWithEndpoint(bed.db, keyring, hanging.url);
      const ids = await enqueueMany(a.merchantId, 30);
      const hookB = await receiver();
      const b = await addMerchantWithEndpoint(bed.db, keyring, hookB.url);
      const logs: { level: string; message: string; fields: Record<string, unknown> }[] = [];
      const logger = Object.fromEntries(
        ["debug", "info", "warn", "error"].map((level) => [
          level,
          (fields: Record<string, unknown>, message: string) => logs.push({ level, message, fields }),
        ]),
      ) as unknown as WorkerLogger;
      const { wake } = worker({
        // Short, but not so short that an answer delayed by a busy test machine (PGlite shares this
        // thread) times out after recovery and is sent twice: once A answers it is alone and clean,
        // and its 12 sends at once (docs/decisions.md#leases-and-fair-shares) were seen to start 3 s late on a loaded machine.
        timeoutMs: 5000,
        connectTimeoutMs: 1000,
        leaseMs: 10_000,
        breaker: { threshold: 3, cooldownMs: 300, maxCooldownMs: 600 },
        // Ten attempts each, quickly retried: without the breaker they would all be spent in seconds.
        retry: { delaysMs: Array(9).fill(100), jitter: 0 },
        logger,
      });
      wake();

      const health = () =>
        bed.db.selectFrom("webhook_endpoint_health").selectAll().where("endpoint_id", "=", a.webhookId).executeTakeFirst();
      await waitUntil(async () => (await health())?.open_until, 20_000, "A's breaker open");
      // Logged once the attempt that opened it is recorded too (a statement after the breaker's).
      const opened = await waitUntil(
        async () => logs.find((line) => line.message.includes("circuit breaker opened")),
        5000,
        "the opening logged",
      );
      assert.equal(opened?.level, "warn");
      assert.equal(opened?.fields.webhookId, a.webhookId);
      assert.equal(opened?.fields.merchantId, a.merchantId);

      // The sends in flight when it opened run out; from then on one probe at a time, after each cool-down.
      // Wait for a moment with nothing in flight (a cool-down between probes): a send begun before
      // the breaker opened may still be hanging beside the first probe, and that is by design.
      await waitUntil(async () => hanging.open === 0, 20_000, "the sends in flight when the breaker opened timed out");
      hanging.resetPeak();
      const probesFrom = hanging.requests.length;
      await waitUntil(async () => hanging.requests.length >= probesFrom + 2, 30_000, "two probes");
      assert.ok(hanging.peak <= 1, `${hanging.peak} sends at once to an endpoint whose breaker is open`);

      // B is not held up by A's breaker.
      const started = Date.now();
      await enqueue(bed.db, b.merchantId, sampleMessage());
      wake();
      const [requestB] = await hookB.waitFor(1, 5000);
      assert.ok(requestB!.receivedAt - started < 1000, `B waited ${requestB!.receivedAt - started} ms`);

      // Held, not failed: every one of A's deliveries is pending, most of them never tried.
      const held = await deliveries(ids);
      assert.ok(
        held.every((row) => row.state === "pending"),
        "none failed",
      );
      const untried = held.filter((row) => row.attempt_count === 0).length;
      // Alone and clean at first, A's first claim took 16 − 4 (docs/decisions.md#leases-and-fair-shares); then probes, one at a time.
      assert.ok(untried >= 12, `only ${untried} of 30 untried: the breaker did not hold them back`);

      // An operator sees it in the metrics.
      const app = Fastify();
      registerMetrics(app, bed.db);
      bed.later(() => app.close());
      const metrics = (await app.inject({ method: "GET", url: "/metrics" })).body;
      assert.match(metrics, /^paylink_webhook_breakers_open 1$/m);
      assert.match(metrics, /^paylink_webhook_deliveries_held 30$/m);

      hanging.recover();
      await waitUntil(async () => (await deliveries(ids)).every((row) => row.state === "delivered"), 30_000, "all of A's delivered");
      const answered = hanging.requests.filter((request) => request.answered).map((request) => request.webhookId);
      assert.deepEqual([...answered].sort(), [...ids].sort(), "every one of A's deliveries arrived exactly once after recovery");
      const closed = logs.find((line) => line.message.includes("circuit breaker closed"));
      assert.equal(closed?.fields.webhookId, a.webhookId);
      const after = await health();
      assert.equal(after?.open_until, null);
      assert.equal(after?.consecutive_failures, 0);
      // Being held back cost no attempt: each delivery counts exactly the sends that reached A.
      for (const row of await deliveries(ids)) {
        const sends = hanging.requests.filter((request) => request.webhookId === row.id).length;
        assert.equal(row.attempt_count, sends, `${row.id}: ${row.attempt_count} attempts counted, ${sends} made`);
      }
    });
  });
}
