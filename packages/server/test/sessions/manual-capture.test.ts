// Manual capture of a session's payment, on every backend (docs/api.md#capture-and-adjust): the
// WooCommerce flow (isManualCapture → pay on the page → Authorization → partial captures, each a
// Capture webhook), what a capture may not do, refunds of captured money only, reversals that
// release (one Refund webhook either way) and the adjustment of a pre-authorisation.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { verifyPaymentWebhook } from "paylink-sdk";
import { WebhookWorker } from "../../src/webhooks/worker.ts";
import { sellLink } from "../support/after-sale.ts";
import { adjust, capture, paidSession, readPayment, reverse } from "../support/capture.ts";
import { testBackends } from "../support/databases.ts";
import { assertError, assertOk } from "../support/fixtures.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { waitUntil } from "../support/wait.ts";
import { type Receiver, startReceiver, testKeyring } from "../webhooks/support.ts";

for (const backend of testBackends()) {
  describe(`manual capture of session payments (${backend.name})`, () => {
    let server: TestServer;
    let worker: WebhookWorker;
    let receiver: Receiver;
    let hmacKey: string;

    before(async () => {
      receiver = await startReceiver();
      server = await startTestServer({ backend, allowPrivateTargets: true });
      worker = new WebhookWorker({ db: server.db, keyring: testKeyring(), allowPrivate: true }).start();
      const response = await fetch(`${server.baseUrl}/admin/v1/merchants/${server.merchantId}/webhooks`, {
        method: "POST",
        headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/json" },
        body: JSON.stringify({ url: receiver.url }),
      });
      hmacKey = ((await response.json()) as { hmacKey: string }).hmacKey;
    });
    after(async () => {
      await worker.stop(1000);
      await server.close();
      await receiver.close();
    });

    const webhooksAbout = (checkoutReference: string) =>
      receiver.requests.map((request) => JSON.parse(request.body)).filter((body) => body.checkoutReference === checkoutReference);
    const eventsOf = async (checkoutReference: string, eventType: string, count: number) => {
      await waitUntil(
        async () => webhooksAbout(checkoutReference).filter((m) => m.additionalData.eventType === eventType).length >= count,
        10_000,
        `${count} ${eventType} webhook(s)`,
      );
      return webhooksAbout(checkoutReference).filter((m) => m.additionalData.eventType === eventType);
    };

    it("the WooCommerce flow: authorised, not captured; partial captures each send a Capture; over-capture 2019", async () => {
      const { checkoutReference, payfacReference } = await paidSession(server, { isManualCapture: true });
      const [authorization] = await eventsOf(checkoutReference, "Authorization", 1);
      assert.deepEqual([authorization.success, authorization.amount, authorization.payfacReference], ["true", "489000", payfacReference]);

      const fresh = await readPayment(server, payfacReference);
      assert.deepEqual([fresh.isManualCapture, fresh.capturedAmount, fresh.captures], [true, 0, []]);
      assert.equal(fresh.merchantReference, "1042");
      assert.equal(fresh.checkoutReference, checkoutReference);

      // Nothing captured: nothing to refund.
      const early = await server.api("POST", "/api/v1/modification/refund", { payfacReference, amount: 10000, currency: "ISK" });
      assertError(early, 409, "3003");
      // Not the payment's currency; zero; more than authorised.
      assertError(await capture(server, payfacReference, 10000, "EUR"), 400, "2008");
      assertError(await capture(server, payfacReference, 0), 400, "2002");
      assertError(await capture(server, payfacReference, 489100), 400, "2019");

      // The amount as a string of digits, as on the session endpoints.
      const first = await capture(server, payfacReference, "200000");
      assertOk(first);
      assert.equal(first.body.status, "Received");
      assert.match(first.body.payfacReference, /^[0-9A-Z]{16}$/);
      assert.notEqual(first.body.payfacReference, payfacReference, "the capture's own reference");
      const [captured] = await eventsOf(checkoutReference, "Capture", 1);
      assert.equal(captured.payfacReference, first.body.payfacReference);
      assert.equal(captured.amount, "200000");
      assert.equal(captured.success, "true");
      assert.equal(captured.merchantReference, "1042");
      assert.equal(captured.additionalData.originalPayfacReference, payfacReference);
      assert.ok(verifyPaymentWebhook(captured, hmacKey), "the signature verifies");

      // Over what is left (289000, shown as ISK 2,890): 2019, naming it.
      assertError(await capture(server, payfacReference, 289100), 400, "2019", "ISK 2,890");
      const second = await capture(server, payfacReference, 289000);
      assertOk(second);
      await eventsOf(checkoutReference, "Capture", 2);
      // Fully captured: nothing more to capture.
      assertError(await capture(server, payfacReference, 100), 409, "3003");

      const read = await readPayment(server, payfacReference);
      assert.equal(read.capturedAmount, 489000);
      assert.deepEqual(
        read.captures.map((c: { payfacReference: string; amount: number; status: string }) => [c.payfacReference, c.amount, c.status]),
        [
          [first.body.payfacReference, 200000, "Approved"],
          [second.body.payfacReference, 289000, "Approved"],
        ],
      );
      assert.ok(!Number.isNaN(Date.parse(read.captures[0].created)));

      // Captured money can be refunded, up to captured − refunded.
      assertOk(await server.api("POST", "/api/v1/modification/refund", { payfacReference, amount: 400000, currency: "ISK" }));
      assertError(
        await server.api("POST", "/api/v1/modification/refund", { payfacReference, amount: 90000, currency: "ISK" }),
        400,
        "2019",
      );
    });

    it("a partly captured payment refunds only what is captured (2019 above it)", async () => {
      const { payfacReference } = await paidSession(server, { reference: "1050", isManualCapture: true });
      assertOk(await capture(server, payfacReference, 100000));
      assertError(
        await server.api("POST", "/api/v1/modification/refund", { payfacReference, amount: 100100, currency: "ISK" }),
        400,
        "2019",
      );
      assertOk(await server.api("POST", "/api/v1/modification/refund", { payfacReference, amount: 100000, currency: "ISK" }));
      // What is not captured can still be captured.
      assertOk(await capture(server, payfacReference, 389000));
    });

    it("capture is for manual-capture authorisations only (409 3003); another merchant's payment is not found", async () => {
      const automatic = await paidSession(server, { reference: "1051" });
      assertError(await capture(server, automatic.payfacReference, 10000), 409, "3003");
      const { payfacReference: linkSale } = await sellLink(server, 48900);
      assertError(await capture(server, linkSale, 10000), 409, "3003");
      assertError(await capture(server, "NOSUCHPAYMENT000", 10000), 404, "2014");
      const other = await server.addMerchant();
      const manual = await paidSession(server, { reference: "1052", isManualCapture: true });
      const foreign = await server.api(
        "POST",
        "/api/v1/modification/capture",
        { payfacReference: manual.payfacReference, amount: 100, currency: "ISK" },
        { "x-api-key": other.apiKey },
      );
      assertError(foreign, 404, "2014");
      assertError(await capture(server, manual.payfacReference, 12345), 400, "2026");
    });

    it("an uncaptured payment reversed: the authorisation is released, one Refund webhook; no capture after", async () => {
      const { checkoutReference, payfacReference } = await paidSession(server, { reference: "1053", isManualCapture: true });
      const reversed = await reverse(server, payfacReference);
      assertOk(reversed);
      const [refund] = await eventsOf(checkoutReference, "Refund", 1);
      assert.equal(refund.payfacReference, reversed.body.payfacReference);
      assert.deepEqual([refund.amount, refund.success, refund.additionalData.modificationType], ["489000", "true", "Reversal"]);
      assertError(await capture(server, payfacReference, 10000), 409, "3003", "released");
      assertError(await reverse(server, payfacReference), 409, "3003");
      const read = await readPayment(server, payfacReference);
      assert.equal(read.capturedAmount, 0);
      assert.equal(read.refunds.length, 1);
      // Still exactly one Refund after the worker has had its chance.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(webhooksAbout(checkoutReference).filter((m) => m.additionalData.eventType === "Refund").length, 1);
    });

    it("a partly captured payment reversed: the captured part refunded, the rest released, one Refund webhook", async () => {
      const { checkoutReference, payfacReference } = await paidSession(server, { reference: "1054", isManualCapture: true });
      assertOk(await capture(server, payfacReference, 189000));
      assertOk(await server.api("POST", "/api/v1/modification/refund", { payfacReference, amount: 89000, currency: "ISK" }));
      const reversed = await reverse(server, payfacReference);
      assertOk(reversed);
      const refunds = await eventsOf(checkoutReference, "Refund", 2);
      const reversal = refunds.find((m) => m.payfacReference === reversed.body.payfacReference);
      // Everything not yet given back: 100000 captured and 300000 not captured.
      assert.deepEqual([reversal.amount, reversal.additionalData.modificationType], ["400000", "Reversal"]);
      assertError(await capture(server, payfacReference, 1000), 409, "3003");
      assertError(await server.api("POST", "/api/v1/modification/refund", { payfacReference, amount: 1000, currency: "ISK" }), 400, "2019");
      const read = await readPayment(server, payfacReference);
      assert.equal(read.capturedAmount, 189000);
    });

    it("a pre-authorisation is adjusted before any capture: Adjustment webhook with the new total, then captured up to it", async () => {
      const { checkoutReference, payfacReference } = await paidSession(server, {
        reference: "1055",
        isManualCapture: true,
        isPreAuth: true,
      });
      assertError(await adjust(server, payfacReference, 600000, "EUR"), 400, "2008");
      const adjusted = await adjust(server, payfacReference, "600000");
      assertOk(adjusted);
      assert.equal(adjusted.body.status, "Received");
      const [adjustment] = await eventsOf(checkoutReference, "Adjustment", 1);
      assert.deepEqual(
        [adjustment.payfacReference, adjustment.amount, adjustment.success, adjustment.additionalData.originalPayfacReference],
        [adjusted.body.payfacReference, "600000", "true", payfacReference],
      );
      assert.equal((await readPayment(server, payfacReference)).amount, 600000);
      assertError(await capture(server, payfacReference, 600100), 400, "2019");
      assertOk(await capture(server, payfacReference, 100000));
      // After a capture: no adjustment.
      assertError(await adjust(server, payfacReference, 700000), 409, "3003");
      assertOk(await capture(server, payfacReference, 500000));
      assert.equal((await readPayment(server, payfacReference)).capturedAmount, 600000);
    });

    it("only a pre-authorisation may be adjusted (409 3003)", async () => {
      const manual = await paidSession(server, { reference: "1056", isManualCapture: true });
      assertError(await adjust(server, manual.payfacReference, 300000), 409, "3003", "pre-authorisation");
      const automatic = await paidSession(server, { reference: "1057", isPreAuth: true });
      assertError(await adjust(server, automatic.payfacReference, 300000), 409, "3003");
    });
  });
}
