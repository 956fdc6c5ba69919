// The delivery worker against a real database (PGlite and PostgreSQL) and real HTTP receivers:
// what each request carries, the retry schedule, Retry-After, failure and resend, leases,
// sharing between workers, wake-up and shutdown. Schedules are shortened through the options.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { verifyPaymentWebhook, verifyStandardWebhook } from "paylink-sdk";
import { resendDelivery } from "../../src/db/webhook-deliveries-repository.ts";
import { updateWebhookEndpoint } from "../../src/db/webhook-endpoints-repository.ts";
import { claimDueDeliveries } from "../../src/webhooks/claim.ts";
import { recordAttempt } from "../../src/webhooks/delivery-queue.ts";
import { testBackends } from "../support/databases.ts";
import { waitUntil } from "../support/wait.ts";
import {
  addMerchantWithEndpoint,
  attemptRows,
  deliveryRow,
  enqueue,
  independentPaymentSignature,
  independentStandardSignature,
  sampleMessage,
  startReceiver,
  testKeyring,
} from "./support.ts";
import { workerTestBed } from "./test-bed.ts";

const keyring = testKeyring();

for (const backend of testBackends()) {
  describe(`webhook worker (${backend.name})`, () => {
    const bed = workerTestBed(backend);
    const { worker, receiver } = bed;

    test("a delivery carries the Authorization header, the documented message body with its HMAC, and Standard Webhooks headers", async () => {
      const hook = await receiver();
      const fixture = await addMerchantWithEndpoint(bed.db, keyring, hook.url);
      worker();
      const message = sampleMessage({
        additionalData: {
          paymentLinkDescription: "order 1001",
          eventType: "Authorization",
          cardNumber: "411111******1111",
          cardSummary: "1111",
          cardUsage: "Debit",
          cardExpiryDate: "03/2030",
          paymentMethod: "VI",
          threeDAuthenticated: "false",
          authCode: "123456",
          paymentLinkIdentifier: "lnkabc",
        },
      });
      const [deliveryId] = await enqueue(bed.db, fixture.merchantId, message);
      const [request] = await hook.waitFor(1);
      assert.ok(request && deliveryId);

      assert.equal(request.method, "POST");
      assert.equal(request.url, "/hooks/paylink");
      assert.equal(request.headers.authorization, fixture.apiKey);
      assert.match(String(request.headers["content-type"]), /^application\/json/);
      const body = JSON.parse(request.body);
      // Field order on the wire: signed fields in signing order, the signature, additionalData in the order of docs/webhooks.md#the-message.
      assert.deepEqual(Object.keys(body), [
        "checkoutReference",
        "payfacReference",
        "merchantReference",
        "amount",
        "currency",
        "reason",
        "success",
        "hmacSignature",
        "additionalData",
      ]);
      assert.deepEqual(Object.keys(body.additionalData), [
        "eventType",
        "cardNumber",
        "cardSummary",
        "cardUsage",
        "cardExpiryDate",
        "paymentMethod",
        "threeDAuthenticated",
        "authCode",
        "paymentLinkIdentifier",
        "paymentLinkDescription",
      ]);
      const { hmacSignature, ...unsigned } = body;
      assert.deepEqual(unsigned, message);
      assert.equal(hmacSignature, independentPaymentSignature(body, fixture.hmacKey));
      assert.equal(verifyPaymentWebhook(request.body, fixture.hmacKey).valid, true);

      assert.equal(request.headers["webhook-id"], deliveryId);
      const timestamp = String(request.headers["webhook-timestamp"]);
      assert.ok(Math.abs(Number(timestamp) - Date.now() / 1000) < 5);
      assert.equal(
        request.headers["webhook-signature"],
        independentStandardSignature(deliveryId, timestamp, request.body, fixture.hmacKey),
      );
      assert.equal(verifyStandardWebhook(request.headers, request.body, fixture.hmacKey).valid, true);

      const row = await waitUntil(async () => {
        const current = await deliveryRow(bed.db, deliveryId);
        return current.state === "delivered" && current;
      });
      assert.equal(row.attempt_count, 1);
      assert.equal(row.last_status_code, 200);
      assert.equal(row.lease_until, null);
      assert.ok(row.delivered_at);
      const attempts = await attemptRows(bed.db, deliveryId);
      assert.equal(attempts.length, 1);
      assert.equal(attempts[0]!.status_code, 200);
      assert.equal(attempts[0]!.response_excerpt, "ok");
      assert.ok(attempts[0]!.latency_ms >= 0);
    });

    test("a failed attempt is retried on the schedule with the same webhook-id and body, then delivered", async () => {
      const hook = await receiver((_request, index) => (index === 0 ? { status: 500, body: "boom" } : { status: 204 }));
      const fixture = await addMerchantWithEndpoint(bed.db, keyring, hook.url);
      worker({ retry: { delaysMs: [300], jitter: 0 } });
      const [deliveryId] = await enqueue(bed.db, fixture.merchantId, sampleMessage());
      const [first, second] = await hook.waitFor(2);
      assert.ok(first && second);
      assert.equal(first.headers["webhook-id"], deliveryId);
      assert.equal(second.headers["webhook-id"], deliveryId);
      assert.equal(second.body, first.body);
      const gap = second.receivedAt - first.receivedAt;
      assert.ok(gap >= 280 && gap < 2000, `retry after ${gap} ms`);
      await waitUntil(async () => (await deliveryRow(bed.db, deliveryId!)).state === "delivered");
      const attempts = await attemptRows(bed.db, deliveryId!);
      assert.deepEqual(
        attempts.map((a) => [a.status_code, a.response_excerpt]),
        [
          [500, "boom"],
          [204, null],
        ],
      );
    });

    test("after the last retry the delivery is failed; a resend sends it again with the same webhook-id", async () => {
      let accept = false;
      const hook = await receiver(() =>
        accept ? { status: 200 } : { status: 302, headers: { location: "http://127.0.0.1:1/elsewhere" } },
      );
      const fixture = await addMerchantWithEndpoint(bed.db, keyring, hook.url);
      worker({ retry: { delaysMs: [20, 20], jitter: 0 } });
      const [deliveryId] = await enqueue(bed.db, fixture.merchantId, sampleMessage());
      await waitUntil(async () => (await deliveryRow(bed.db, deliveryId!)).state === "failed");
      // Three attempts (first + two retries), each a redirect that was not followed.
      assert.equal(hook.requests.length, 3);
      assert.deepEqual(
        (await attemptRows(bed.db, deliveryId!)).map((a) => a.status_code),
        [302, 302, 302],
      );

      accept = true;
      assert.equal(await resendDelivery(bed.db, fixture.merchantId, deliveryId!), "resent");
      const requests = await hook.waitFor(4);
      assert.equal(requests[3]!.headers["webhook-id"], deliveryId);
      const row = await waitUntil(async () => {
        const current = await deliveryRow(bed.db, deliveryId!);
        return current.state === "delivered" && current;
      });
      assert.equal(row.attempt_count, 1, "a resend starts a fresh round");
      assert.equal((await attemptRows(bed.db, deliveryId!)).length, 4, "the log keeps every attempt");
      // Another merchant cannot resend it; an unknown id is reported as such.
      const other = await addMerchantWithEndpoint(bed.db, keyring, hook.url);
      assert.equal(await resendDelivery(bed.db, other.merchantId, deliveryId!), "not-found");
    });

    test("Retry-After on a 503 holds the retry back longer than the schedule", async () => {
      const hook = await receiver((_request, index) => (index === 0 ? { status: 503, headers: { "retry-after": "1" } } : { status: 200 }));
      const fixture = await addMerchantWithEndpoint(bed.db, keyring, hook.url);
      worker({ retry: { delaysMs: [50], jitter: 0 } });
      await enqueue(bed.db, fixture.merchantId, sampleMessage());
      const [first, second] = await hook.waitFor(2, 5000);
      const gap = second!.receivedAt - first!.receivedAt;
      assert.ok(gap >= 950, `retried after ${gap} ms despite Retry-After: 1`);
    });

    test("a receiver slower than the timeout is a failed attempt; a refused connection too", async () => {
      const slow = await receiver(() => ({ status: 200, delayMs: 2000 }));
      const fixture = await addMerchantWithEndpoint(bed.db, keyring, slow.url);
      worker({ timeoutMs: 200, leaseMs: 5000, retry: { delaysMs: [60_000], jitter: 0 } });
      const [slowId] = await enqueue(bed.db, fixture.merchantId, sampleMessage());
      const [attempt] = await waitUntil(async () => {
        const rows = await attemptRows(bed.db, slowId!);
        return rows.length > 0 && rows;
      });
      assert.equal(attempt!.status_code, null);
      assert.match(attempt!.error ?? "", /timed out after 0.2 s/);
      assert.ok(attempt!.latency_ms >= 190 && attempt!.latency_ms < 1500, `latency ${attempt!.latency_ms}`);
      const row = await deliveryRow(bed.db, slowId!);
      assert.equal(row.state, "pending");
      assert.ok(row.next_attempt_at.getTime() > Date.now() + 50_000, "next attempt on the schedule");

      // A port nobody listens on.
      const closed = await startReceiver();
      await closed.close();
      const down = await addMerchantWithEndpoint(bed.db, keyring, closed.url);
      const [downId] = await enqueue(bed.db, down.merchantId, sampleMessage());
      const [refused] = await waitUntil(async () => {
        const rows = await attemptRows(bed.db, downId!);
        return rows.length > 0 && rows;
      });
      assert.match(refused!.error ?? "", /connection refused \(ECONNREFUSED\)/);
    });

    test("a disabled endpoint gets nothing queued, and holds what was queued before; enabling it sends that", async () => {
      const hook = await receiver();
      const fixture = await addMerchantWithEndpoint(bed.db, keyring, hook.url);
      const [queuedId] = await enqueue(bed.db, fixture.merchantId, sampleMessage());
      await updateWebhookEndpoint(bed.db, keyring, fixture.merchantId, fixture.webhookId, { enabled: false });
      assert.deepEqual(await enqueue(bed.db, fixture.merchantId, sampleMessage()), [], "a payment queues nothing for a disabled endpoint");
      // Queued after the held one, for an enabled endpoint: once the worker has sent it and has
      // nothing in flight, it has been through the held delivery too.
      const otherHook = await receiver();
      const other = await addMerchantWithEndpoint(bed.db, keyring, otherHook.url);
      const [laterId] = await enqueue(bed.db, other.merchantId, sampleMessage());
      const { instance, wake } = worker();
      await waitUntil(
        async () => (await deliveryRow(bed.db, laterId!)).state === "delivered" && instance.inFlight === 0,
        10_000,
        "the later delivery sent and the worker idle",
      );
      assert.equal(hook.requests.length, 0, "nothing sent to a disabled endpoint");
      assert.equal((await deliveryRow(bed.db, queuedId!)).state, "pending");
      await updateWebhookEndpoint(bed.db, keyring, fixture.merchantId, fixture.webhookId, { enabled: true });
      wake();
      const [request] = await hook.waitFor(1);
      assert.equal(request!.headers["webhook-id"], queuedId);
    });

    test("a wake-up sends at once, without waiting for the poll", async () => {
      const hook = await receiver();
      const fixture = await addMerchantWithEndpoint(bed.db, keyring, hook.url);
      // The worker's first poll sends this one; then it sleeps until the next poll, a minute away.
      const [firstId] = await enqueue(bed.db, fixture.merchantId, sampleMessage());
      const { instance, wake } = worker({ idleIntervalMs: 60_000 });
      await waitUntil(
        async () => (await deliveryRow(bed.db, firstId!)).state === "delivered" && instance.inFlight === 0,
        10_000,
        "the first poll's delivery sent and the worker asleep",
      );
      const started = Date.now();
      await enqueue(bed.db, fixture.merchantId, sampleMessage());
      wake();
      await hook.waitFor(2, 2000);
      assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`);
    });

    test("a claim held by a crashed worker is taken over after its lease; its late outcome no longer decides", async () => {
      const hook = await receiver();
      const fixture = await addMerchantWithEndpoint(bed.db, keyring, hook.url);
      const [deliveryId] = await enqueue(bed.db, fixture.merchantId, sampleMessage());
      // A worker claims it and dies: the lease is all that remains.
      const [claim] = await claimDueDeliveries(bed.db, 100, 800);
      assert.equal(claim?.id, deliveryId);
      assert.deepEqual(await claimDueDeliveries(bed.db, 100, 800), [], "a leased delivery is not due");
      const started = Date.now();
      worker();
      await hook.waitFor(1, 5000);
      assert.ok(Date.now() - started >= 600, "not before the lease ran out");
      await waitUntil(async () => (await deliveryRow(bed.db, deliveryId!)).state === "delivered");
      // The dead worker's outcome arrives late: logged, but the state stays as the new owner set it.
      const { owned } = await recordAttempt(bed.db, claim!, {
        attemptedAt: new Date(),
        statusCode: null,
        latencyMs: 10_000,
        responseExcerpt: null,
        error: "late",
        next: { state: "failed" },
      });
      assert.equal(owned, false);
      assert.equal((await deliveryRow(bed.db, deliveryId!)).state, "delivered");
    });

    test("two workers on one database share 120 deliveries: each sent exactly once", async () => {
      const hook = await receiver(() => ({ status: 200, delayMs: 5 }));
      const fixture = await addMerchantWithEndpoint(bed.db, keyring, hook.url);
      const ids: string[] = [];
      for (let i = 0; i < 120; i++) ids.push(...(await enqueue(bed.db, fixture.merchantId, sampleMessage())));
      const a = worker({ concurrency: 4 });
      const b = worker({ concurrency: 4 });
      a.wake();
      b.wake();
      // Against hangs only: one endpoint's deliveries go 4 at a time under the per-endpoint cap
      // (docs/decisions.md#leases-and-fair-shares), claimed as slots free up, which takes 8–28 s on a loaded machine on PGlite.
      await hook.waitFor(120, 60_000);
      await waitUntil(
        async () => {
          const rows = await bed.db.selectFrom("webhook_deliveries").select("state").where("id", "in", ids).execute();
          return rows.every((row) => row.state === "delivered");
        },
        10_000,
        "all 120 deliveries recorded as delivered",
      );
      // stop() returns once claims under way and sends in flight are done: nothing can arrive after it.
      await Promise.all([a.instance.stop(5000), b.instance.stop(5000)]);
      const seen = hook.requests.map((request) => String(request.headers["webhook-id"]));
      assert.equal(seen.length, 120);
      assert.equal(new Set(seen).size, 120);
      assert.deepEqual([...seen].sort(), [...ids].sort());
    });

    test("stop() waits for a send in flight; past the grace period it aborts and hands the delivery back", async () => {
      const hook = await receiver(() => ({ status: 200, delayMs: 400 }));
      const fixture = await addMerchantWithEndpoint(bed.db, keyring, hook.url);
      const patient = worker();
      const [firstId] = await enqueue(bed.db, fixture.merchantId, sampleMessage());
      patient.wake();
      await hook.waitFor(1);
      await patient.instance.stop(5000);
      assert.equal((await deliveryRow(bed.db, firstId!)).state, "delivered", "the send in flight finished and was recorded");

      const slow = await receiver(() => ({ status: 200, delayMs: 5000 }));
      const other = await addMerchantWithEndpoint(bed.db, keyring, slow.url);
      const hasty = worker();
      const [secondId] = await enqueue(bed.db, other.merchantId, sampleMessage());
      hasty.wake();
      await slow.waitFor(1);
      const started = Date.now();
      await hasty.instance.stop(100);
      assert.ok(Date.now() - started < 2000);
      const row = await deliveryRow(bed.db, secondId!);
      assert.equal(row.state, "pending");
      assert.equal(row.lease_until, null, "handed back for another worker to send at once");
      assert.equal(row.attempt_count, 0);
      assert.deepEqual(await attemptRows(bed.db, secondId!), [], "an interrupted send is not an attempt");
    });
  });
}
