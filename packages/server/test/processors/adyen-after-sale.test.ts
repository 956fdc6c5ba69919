// After the sale through Adyen, end to end on every backend, through Paylink's own API: saved
// cards are charged at Adyen (3-D Secure included), refunds, reversals and captures are answered
// "Received" and settled by Adyen's HMAC-signed notifications, and a charge whose answer is lost
// is found by sending it again under its key and reversed. Adyen is the local fake
// (test/support/adyen-fake.ts), which checks every request against Adyen's published schemas.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ADYEN_TEST_CARDS, type FakeAdyen } from "../support/adyen-fake.ts";
import { payOnAdyenPage, type ShopOnAdyen, startShopOnAdyen } from "../support/adyen-shop.ts";
import { refund } from "../support/after-sale.ts";
import { testBackends } from "../support/databases.ts";
import type { TestServer } from "../support/harness.ts";
import {
  captureSessionPayment,
  capturesRecorded,
  chargeByToken,
  payManualCaptureSession,
  refundRaceOnTwoInstances,
  refundsRecorded,
  refundsSettled,
  reverseReceived,
  sellLinkOnProcessorPage,
  tokenPaymentOf,
} from "../support/processor-after-sale.ts";
import { waitUntil } from "../support/wait.ts";

for (const backend of testBackends()) {
  describe(`after the sale through Adyen (${backend.name})`, () => {
    let context: ShopOnAdyen;
    let adyen: FakeAdyen;
    let shop: TestServer;

    before(async () => {
      context = await startShopOnAdyen(backend);
      ({ adyen, shop } = context);
    });
    after(async () => {
      await context?.close();
    });

    const eventsOf = (reference: string, eventType: string) =>
      context.merchantWebhooks(reference).filter((body) => body.additionalData.eventType === eventType);
    const payOnAdyen = (location: string, expected: 200 | 303) => payOnAdyenPage(shop)(location, expected);
    /** The fake's session behind the Adyen page the shopper paid on. */
    const adyenSessionOf = (processorPage: string) => adyen.sessions.get(new URL(processorPage).pathname.split("/").pop()!)!;
    /** A link sold (or a card saved) on Adyen's page: the approved attempt. */
    const sellLink = (options: Record<string, unknown> = {}) => sellLinkOnProcessorPage(shop, payOnAdyen, options);
    const saveCard = async () => {
      const saved = await sellLink({ type: "TokenizeByLink", amount: 0 });
      assert.ok(saved.token, "the card was saved");
      return { ...saved, token: saved.token!, storedPaymentMethodId: adyenSessionOf(saved.processorPage).storedPaymentMethodId! };
    };
    /** A renewal of 1299 kr.; the merchant's returnUrl is where Adyen sends a shopper back after 3-D Secure. */
    const charge = (token: string, reference: string, overrides: Record<string, unknown> = {}) =>
      chargeByToken(shop, token, reference, { amount: 129900, returnUrl: "http://shop.example/after-3ds", ...overrides });
    const quiet = () => new Promise((resolve) => setTimeout(resolve, 400));

    it("charges a saved card at Adyen, then refunds it in part and in full, each settled by Adyen's REFUND", async () => {
      const saved = await saveCard();
      const charged = await charge(saved.token, "renewal-1");
      assert.equal(charged.status, 200, JSON.stringify(charged.body));
      assert.equal(charged.body.resultCode, "Authorised");
      const payfacReference = charged.body.payfacReference as string;
      const sent = JSON.parse(adyen.requests.filter((request) => request.route === "POST /v71/payments").at(-1)!.body);
      assert.deepEqual(sent.paymentMethod, { type: "scheme", storedPaymentMethodId: saved.storedPaymentMethodId });
      assert.equal(sent.shopperReference, `paylink-${saved.attempt}`, "the shopper the card was stored under");
      assert.equal(sent.shopperInteraction, "ContAuth");
      await waitUntil(async () => eventsOf("renewal-1", "Authorization").length >= 1, 10_000, "the merchant's Authorization");

      const first = await refund(shop, payfacReference, 30000);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.body.status, "Received");
      await refundsSettled(shop, payfacReference, 1);
      const rest = await refund(shop, payfacReference, 99900);
      assert.equal(rest.status, 200, JSON.stringify(rest.body));
      await refundsSettled(shop, payfacReference, 2);
      const refunds = await refundsRecorded(shop, payfacReference);
      assert.deepEqual(
        refunds.map((row) => [row.amount, row.state]),
        [
          [30000, "succeeded"],
          [99900, "succeeded"],
        ],
      );
      // Each kept with Adyen's own reference of it, and Adyen was asked under Paylink's.
      for (const row of refunds) {
        const made = adyen.modifications.find((modification) => modification.reference === row.payfac_reference)!;
        assert.equal(row.processor_reference, made.pspReference);
        assert.equal(made.paymentPspReference, payfacReference);
      }
      await waitUntil(async () => eventsOf("renewal-1", "Refund").length >= 2, 10_000, "the merchant's Refund webhooks");
      const told = eventsOf("renewal-1", "Refund");
      assert.deepEqual(told.map((body) => [body.amount, body.success]).sort(), [
        ["30000", "true"],
        ["99900", "true"],
      ]);
      assert.ok(told.every((body) => body.additionalData.originalPayfacReference === payfacReference));
      const read = await shop.api("GET", `/api/v1/payments/${payfacReference}`);
      assert.equal(read.body.payment.refundedAmount, 129900);
    });

    it("a charge Adyen wants 3-D Secure for: RedirectShopper, Paylink forwards the shopper, the AUTHORISATION decides", async () => {
      const saved = await saveCard();
      adyen.requireShopperFor(saved.storedPaymentMethodId);
      const answered = await charge(saved.token, "order-3ds", { amount: 7700 });
      assert.equal(answered.status, 200, JSON.stringify(answered.body));
      assert.equal(answered.body.resultCode, "RedirectShopper");
      const redirect = new URL(answered.body.redirect.url);
      assert.equal(redirect.origin, shop.baseUrl, "a Paylink address, not Adyen's");
      assert.equal((await tokenPaymentOf(shop, "order-3ds")).state, "pending");
      const forwarded = await fetch(redirect, { redirect: "manual" });
      assert.equal(forwarded.status, 303);
      const challenge = new URL(forwarded.headers.get("location")!);
      assert.equal(challenge.origin, adyen.origin);
      const back = await fetch(challenge, { redirect: "manual" });
      assert.equal(back.status, 303);
      assert.ok(back.headers.get("location")!.startsWith("http://shop.example/after-3ds?redirectResult="));
      await waitUntil(async () => (await tokenPaymentOf(shop, "order-3ds")).state === "approved", 10_000, "Adyen's AUTHORISATION");
      await waitUntil(async () => eventsOf("order-3ds", "Authorization").length >= 1, 10_000, "the merchant's Authorization");
      await quiet();
      const [event, ...more] = eventsOf("order-3ds", "Authorization");
      assert.equal(more.length, 0);
      assert.equal(event.success, "true");
      assert.equal(event.amount, "7700");
      assert.equal(event.additionalData.threeDAuthenticated, "true");
      assert.equal(event.payfacReference, (await tokenPaymentOf(shop, "order-3ds")).payfac_reference);
    });

    it("without the merchant's returnUrl, Adyen gets Paylink's page, where the shopper ends after 3-D Secure", async () => {
      const saved = await saveCard();
      adyen.requireShopperFor(saved.storedPaymentMethodId);
      const answered = await charge(saved.token, "order-no-return", { amount: 5500, returnUrl: undefined });
      assert.equal(answered.status, 200, JSON.stringify(answered.body));
      assert.equal(answered.body.resultCode, "RedirectShopper");
      const sent = JSON.parse(adyen.requests.filter((request) => request.route === "POST /v71/payments").at(-1)!.body);
      const done = `${shop.baseUrl}/processors/authenticate/${(await tokenPaymentOf(shop, "order-no-return")).id}/done`;
      assert.equal(sent.returnUrl, done, "Adyen requires a return address: Paylink's own");
      const forwarded = await fetch(answered.body.redirect.url, { redirect: "manual" });
      const back = await fetch(forwarded.headers.get("location")!, { redirect: "manual" });
      assert.equal(back.status, 303);
      const landing = new URL(back.headers.get("location")!);
      assert.equal(`${landing.origin}${landing.pathname}`, done);
      const page = await fetch(landing);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /authentication is done/);
      await waitUntil(async () => (await tokenPaymentOf(shop, "order-no-return")).state === "approved", 10_000, "Adyen's AUTHORISATION");
    });

    it("reverses a sale: Received, then one Refund webhook when Adyen's CANCEL_OR_REFUND arrives", async () => {
      const sale = await sellLink();
      await reverseReceived(shop, sale.payfacReference);
      await refundsSettled(shop, sale.payfacReference, 1);
      const [row] = await refundsRecorded(shop, sale.payfacReference);
      assert.deepEqual([row!.kind, row!.state, row!.amount], ["reversal", "succeeded", 48900]);
      const sent = adyen.requests.filter((request) => request.route === "POST /v71/payments/{paymentPspReference}/reversals").at(-1)!;
      assert.equal(sent.path, `/v71/payments/${sale.payfacReference}/reversals`);
      assert.equal(sent.idempotencyKey, row!.payfac_reference);
      await waitUntil(async () => eventsOf(sale.reference, "Refund").length >= 1, 10_000, "the merchant's Refund webhook");
      await quiet();
      const told = eventsOf(sale.reference, "Refund");
      assert.equal(told.length, 1);
      assert.deepEqual([told[0].success, told[0].amount], ["true", "48900"]);
      assert.equal(told[0].additionalData.originalPayfacReference, sale.payfacReference);
    });

    it("a session with manual capture is authorised only at Adyen, then captured in part by Adyen's CAPTURE", async () => {
      const { processorPage, payfacReference } = await payManualCaptureSession(shop, payOnAdyen);
      const atAdyen = JSON.parse(
        adyen.requests.find(
          (request) => request.route === "POST /v71/sessions" && request.body.includes(adyenSessionOf(processorPage).reference),
        )!.body,
      );
      assert.deepEqual(atAdyen.additionalData, { manualCapture: "true" }, "Adyen authorises only");

      const capture = await captureSessionPayment(shop, payfacReference, 30000);
      assert.equal(capture.status, 200, JSON.stringify(capture.body));
      assert.equal(capture.body.status, "Received");
      await waitUntil(async () => (await capturesRecorded(shop, payfacReference))[0]?.state === "approved", 10_000, "Adyen's CAPTURE");
      const made = adyen.modifications.at(-1)!;
      assert.deepEqual([made.kind, made.paymentPspReference], ["captures", payfacReference]);
      assert.equal((await capturesRecorded(shop, payfacReference))[0]!.processor_reference, made.pspReference);
      await waitUntil(async () => eventsOf("77", "Capture").length >= 1, 10_000, "the merchant's Capture webhook");
      const [told] = eventsOf("77", "Capture");
      assert.deepEqual([told.success, told.amount], ["true", "30000"]);
      assert.equal(told.additionalData.originalPayfacReference, payfacReference);
      const read = await shop.api("GET", `/api/v1/payments/${payfacReference}`);
      assert.equal(read.body.payment.capturedAmount, 30000);
    });

    it("the same REFUND three times and out of order gives one result each; a bad signature changes nothing (401)", async () => {
      const sale = await sellLink();
      adyen.autoNotifications = false;
      try {
        assert.equal((await refund(shop, sale.payfacReference, 10000)).status, 200);
        assert.equal((await refund(shop, sale.payfacReference, 20000)).status, 200);
        const [first, second] = adyen.modifications.filter((modification) => modification.paymentPspReference === sale.payfacReference);
        const forged = await adyen.sendNotification([first!.item], { hmacKey: "AB".repeat(32) });
        assert.equal(forged.status, 401);
        assert.ok(
          (await refundsRecorded(shop, sale.payfacReference)).every((row) => row.state === "pending"),
          "nothing changed",
        );
        // The second refund's result first, then the first's three times.
        for (const item of [second!.item, first!.item, first!.item, first!.item]) {
          const sent = await adyen.sendNotification([item]);
          assert.deepEqual([sent.status, sent.answer], [200, "[accepted]"]);
        }
      } finally {
        adyen.autoNotifications = true;
      }
      assert.ok((await refundsRecorded(shop, sale.payfacReference)).every((row) => row.state === "succeeded"));
      await waitUntil(async () => eventsOf(sale.reference, "Refund").length >= 2, 10_000, "the merchant's Refund webhooks");
      await quiet();
      assert.deepEqual(
        eventsOf(sale.reference, "Refund")
          .map((body) => body.amount)
          .sort(),
        ["10000", "20000"],
      );
    });

    it("a refund Adyen refuses at once ends Failed, its amount free again, with one Refund webhook saying so", async () => {
      const sale = await sellLink();
      adyen.refuseNext(/\/refunds$/, "Invalid amount specified");
      const refused = await refund(shop, sale.payfacReference, 10000);
      assert.equal(refused.status, 200, JSON.stringify(refused.body));
      const [row] = await refundsRecorded(shop, sale.payfacReference);
      assert.deepEqual([row!.state, row!.failure_reason], ["failed", "Invalid amount specified"]);
      await waitUntil(async () => eventsOf(sale.reference, "Refund").length >= 1, 10_000, "the merchant's Refund webhook");
      const [told] = eventsOf(sale.reference, "Refund");
      assert.equal(told.success, "false");
      const read = await shop.api("GET", `/api/v1/payments/${sale.payfacReference}`);
      assert.equal(read.body.payment.refundedAmount, 0);
      assert.equal((await refund(shop, sale.payfacReference, 48900)).status, 200, "the whole amount can still be refunded");
    });

    it("a charge whose answer is lost is sent again under its key and reversed at Adyen: never a payment", async () => {
      const saved = await saveCard();
      adyen.loseNextAnswer(/^\/v71\/payments$/);
      const lost = await charge(saved.token, "lost-1");
      assert.equal(lost.status, 503, JSON.stringify(lost.body));
      assert.match(lost.body.errorMessage, /nothing was charged/);
      const atShop = await tokenPaymentOf(shop, "lost-1");
      assert.deepEqual([atShop.state, atShop.payfac_reference], ["failed", null]);
      const charged = [...adyen.payments.values()].find((payment) => payment.reference === atShop.id)!;
      assert.ok(charged, "Adyen had charged it");
      const reversal = adyen.requests.find((request) => request.path === `/v71/payments/${charged.pspReference}/reversals`)!;
      assert.equal(reversal.idempotencyKey, `reverse-${atShop.id}`);
      // Adyen's AUTHORISATION of the lost charge, and the reversal's CANCEL_OR_REFUND, are acknowledged and change nothing.
      await waitUntil(
        async () =>
          adyen.notifications.find((sent) => sent.eventCode === "CANCEL_OR_REFUND" && sent.merchantReference === `reverse-${atShop.id}`),
        10_000,
        "the reversal's notification",
      );
      await quiet();
      const about = adyen.notifications.filter((sent) => [atShop.id, `reverse-${atShop.id}`].includes(sent.merchantReference));
      assert.ok(about.length >= 2 && about.every((sent) => sent.status === 200), JSON.stringify(about));
      assert.equal((await tokenPaymentOf(shop, "lost-1")).state, "failed");
      assert.equal(eventsOf("lost-1", "Authorization").length, 0);
    });

    it("refunds racing on two instances never pass the sale, and Adyen is asked only for those that fit", {
      skip: backend.name !== "postgres" && "a second instance needs PostgreSQL",
    }, async () => {
      const sale = await refundRaceOnTwoInstances(
        context,
        sellLink,
        (payfacReference) => adyen.modifications.filter((modification) => modification.paymentPspReference === payfacReference).length,
      );
      await refundsSettled(shop, sale.payfacReference, 9);
    });

    it("every request Paylink sent, Adyen's published schema accepts; no card number, key or secret is logged", () => {
      for (const request of adyen.requests.filter((sent) => sent.status < 400)) {
        assert.deepEqual(request.errors, [], `${request.route}: ${request.errors.join("; ")}`);
        assert.deepEqual(request.answerErrors, [], `the fake's answer to ${request.route}: ${request.answerErrors.join("; ")}`);
      }
      const logged = context.logs.join("\n");
      for (const secret of [ADYEN_TEST_CARDS.approved, adyen.apiKey, adyen.hmacKey]) assert.ok(!logged.includes(secret));
    });
  });
}
