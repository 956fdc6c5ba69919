// After the sale through Stripe, end to end on every backend and through real HTTP: saved cards are
// charged with off-session PaymentIntents (3-D Secure through Stripe's page when the bank wants the
// cardholder), refunds settle at once or by Stripe's refund events, reversals cancel or refund, a
// manual-capture session is captured at Stripe, and a charge whose answer is lost is found again
// by its Idempotency-Key and voided. Stripe is the local fake (test/support/stripe-fake.ts), which
// checks every request against Stripe's published request schemas and signs its events as Stripe does.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
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
  reverseReceived,
  sellLinkOnProcessorPage,
  tokenPaymentOf,
} from "../support/processor-after-sale.ts";
import { type FakeStripe, STRIPE_TEST_CARDS } from "../support/stripe-fake.ts";
import { payOnStripePage, type ShopOnStripe, startShopOnStripe } from "../support/stripe-shop.ts";
import { waitUntil } from "../support/wait.ts";

for (const backend of testBackends()) {
  describe(`after the sale through Stripe (${backend.name})`, () => {
    let context: ShopOnStripe;
    let stripe: FakeStripe;
    let shop: TestServer;

    before(async () => {
      context = await startShopOnStripe(backend);
      ({ stripe, shop } = context);
    });
    after(async () => {
      await context?.close();
    });

    /** A link sold (or a card saved) on Stripe's page: the approved attempt. */
    const sellLink = (options: Record<string, unknown> = {}, card: string = STRIPE_TEST_CARDS.approved) =>
      sellLinkOnProcessorPage(shop, payOnStripePage(shop, card), options);
    const saveCard = async (card: string = STRIPE_TEST_CARDS.approved) => {
      const { token } = await sellLink({ type: "TokenizeByLink", amount: 0 }, card);
      assert.match(token ?? "", /^pm_/, "the saved card's token is its PaymentMethod");
      return token!;
    };
    const sent = (route: string) => stripe.requests.filter((request) => request.route === route);
    const eventsOf = (reference: string, eventType: string) =>
      context.merchantWebhooks(reference).filter((body) => body.additionalData.eventType === eventType);
    /** Lets every event and webhook in flight arrive before counting them. */
    const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

    it("charges a saved card off-session: Authorised at once with its webhook; a card its bank declines is Refused", async () => {
      const token = await saveCard();
      const approved = await chargeByToken(shop, token, "renewal-2026-12");
      assert.equal(approved.status, 200, JSON.stringify(approved.body));
      assert.equal(approved.body.resultCode, "Authorised");
      assert.match(approved.body.payfacReference, /^pi_/, "Paylink knows a Stripe payment by its PaymentIntent");
      // What Stripe was asked: the PaymentMethod with its Customer, off-session, keyed by Paylink's payment.
      const [created] = sent("POST /v1/payment_intents").slice(-1);
      const body = new URLSearchParams(created!.body);
      assert.equal(body.get("payment_method"), token);
      assert.equal(body.get("customer"), (await stripeMethod(token)).customer);
      assert.equal(body.get("off_session"), "true");
      assert.equal(body.get("confirm"), "true");
      assert.equal(body.get("amount"), "129000", "1290 kr. is 129000 at Stripe too");
      assert.equal(body.get("currency"), "isk");
      assert.equal(body.get("metadata[checkoutReference]"), approved.body.checkoutReference);
      assert.equal(created!.idempotencyKey, approved.body.checkoutReference);
      await waitUntil(async () => eventsOf("renewal-2026-12", "Authorization").length >= 1, 10_000, "the Authorization webhook");
      const [event] = eventsOf("renewal-2026-12", "Authorization");
      assert.equal(event.success, "true");
      assert.equal(event.amount, "129000");
      assert.equal(event.payfacReference, approved.body.payfacReference);
      // Stripe's own payment_intent.succeeded about it arrives too and changes nothing.
      await waitUntil(
        async () => stripe.events.some((sentEvent) => sentEvent.type === "payment_intent.succeeded"),
        10_000,
        "Stripe's event",
      );
      await settle();
      assert.equal(eventsOf("renewal-2026-12", "Authorization").length, 1);

      const poor = await saveCard(STRIPE_TEST_CARDS.chargeFails);
      const refused = await chargeByToken(shop, poor, "renewal-poor");
      assert.equal(refused.status, 200, JSON.stringify(refused.body));
      assert.equal(refused.body.resultCode, "Refused");
      assert.equal(refused.body.refusalReason, "Not enough balance");
      await waitUntil(async () => eventsOf("renewal-poor", "Authorization").length >= 1, 10_000, "the refusal's webhook");
      assert.equal(eventsOf("renewal-poor", "Authorization")[0].success, "false");
      assertStripeAcceptedAll();
    });

    it("a card whose bank wants 3-D Secure: RedirectShopper, Paylink forwards to Stripe's page, Stripe's event decides", async () => {
      const token = await saveCard(STRIPE_TEST_CARDS.authenticationRequired);
      const answered = await chargeByToken(shop, token, "order-3ds", { returnUrl: "http://shop.example/after-3ds" });
      assert.equal(answered.status, 200, JSON.stringify(answered.body));
      assert.equal(answered.body.resultCode, "RedirectShopper");
      const redirect = new URL(answered.body.redirect.url);
      assert.equal(redirect.origin, shop.baseUrl, "a Paylink address, not Stripe's");
      // The same PaymentIntent confirmed again on-session, with the merchant's return address.
      const [confirmed] = sent("POST /v1/payment_intents/{intent}/confirm");
      assert.equal(new URLSearchParams(confirmed!.body).get("return_url"), "http://shop.example/after-3ds");
      // Stripe's payment_failed about the off-session attempt (authentication_required) decides nothing.
      await waitUntil(async () => stripe.events.some((event) => event.type === "payment_intent.payment_failed"), 10_000, "Stripe's event");
      await settle();
      assert.equal((await tokenPaymentOf(shop, "order-3ds")).state, "pending");
      assert.equal(eventsOf("order-3ds", "Authorization").length, 0);

      const forwarded = await fetch(redirect, { redirect: "manual" });
      assert.equal(forwarded.status, 303);
      const challenge = new URL(forwarded.headers.get("location")!);
      assert.equal(challenge.origin, stripe.origin);
      const done = await fetch(challenge, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "result=pass",
      });
      assert.equal(done.status, 303);
      assert.match(done.headers.get("location")!, /^http:\/\/shop\.example\/after-3ds\?payment_intent=pi_/);
      await waitUntil(
        async () => (await tokenPaymentOf(shop, "order-3ds")).state === "approved",
        10_000,
        "Stripe's payment_intent.succeeded",
      );
      await waitUntil(async () => eventsOf("order-3ds", "Authorization").length >= 1, 10_000, "the merchant's Authorization");
      const [event] = eventsOf("order-3ds", "Authorization");
      assert.equal(event.success, "true");
      assert.equal(event.additionalData.threeDAuthenticated, "true");
      assert.equal(event.payfacReference, confirmed!.path.split("/")[3]);
      assertStripeAcceptedAll();
    });

    it("refunds in part (settled at once) and the rest (pending, then settled by Stripe's events): one Refund webhook each", async () => {
      const sale = await sellLink();
      const first = await refund(shop, sale.payfacReference, 10000);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.body.status, "Received");
      // Stripe answered succeeded: settled at once.
      assert.equal((await refundsRecorded(shop, sale.payfacReference))[0]!.state, "succeeded");
      const [asked] = sent("POST /v1/refunds").slice(-1);
      const askedBody = new URLSearchParams(asked!.body);
      assert.equal(askedBody.get("payment_intent"), sale.payfacReference);
      assert.equal(askedBody.get("amount"), "10000");
      assert.equal(askedBody.get("metadata[paylinkReference]"), (await refundsRecorded(shop, sale.payfacReference))[0]!.payfac_reference);
      assert.equal(asked!.idempotencyKey, askedBody.get("metadata[paylinkReference]"));

      stripe.refundsPending = true;
      try {
        const rest = await refund(shop, sale.payfacReference, 38900);
        assert.equal(rest.status, 200, JSON.stringify(rest.body));
        const pending = (await refundsRecorded(shop, sale.payfacReference))[1]!;
        assert.equal(pending.state, "pending");
        assert.match(pending.processor_reference ?? "", /^re_/, "Stripe's refund named");
        const stripeRefund = stripe.refunds.get(pending.processor_reference!);
        // A forged event changes nothing (401).
        const forged = await stripe.sendObjectEvent("refund.updated", { ...stripeRefund, status: "succeeded" }, { secret: "whsec_forged" });
        assert.equal(forged, 401);
        assert.equal((await refundsRecorded(shop, sale.payfacReference))[1]!.state, "pending");
        // Stripe's two events, then each again out of order, three times: settled once.
        await stripe.settleRefund(pending.processor_reference!, "succeeded");
        assert.equal((await refundsRecorded(shop, sale.payfacReference))[1]!.state, "succeeded");
        const settled = stripe.refunds.get(pending.processor_reference!);
        for (let i = 0; i < 3; i++) {
          assert.equal(await stripe.sendObjectEvent("charge.refund.updated", settled, { eventId: "evt_again" }), 200);
          assert.equal(await stripe.sendObjectEvent("refund.created", { ...settled, status: "pending" }), 200);
          assert.equal(await stripe.sendObjectEvent("refund.updated", settled, { eventId: "evt_again_2" }), 200);
        }
      } finally {
        stripe.refundsPending = false;
      }
      await waitUntil(async () => eventsOf(sale.reference, "Refund").length >= 2, 10_000, "the merchant's Refund webhooks");
      await settle();
      const webhooks = eventsOf(sale.reference, "Refund");
      assert.deepEqual(
        webhooks.map((body) => [body.amount, body.success, body.additionalData.originalPayfacReference]),
        [
          ["10000", "true", sale.payfacReference],
          ["38900", "true", sale.payfacReference],
        ],
      );
      const read = await shop.api("GET", `/api/v1/payments/${sale.payfacReference}`);
      assert.equal(read.body.payment.refundedAmount, 48900);
      assert.equal(stripe.paymentIntents.get(sale.payfacReference) && chargeOf(sale.payfacReference).amount_refunded, 48900);
      assertStripeAcceptedAll();
    });

    it("a refund Stripe fails frees its amount: Refund webhook with success false, and the money can be refunded again", async () => {
      const sale = await sellLink();
      stripe.refundsPending = true;
      let pendingId: string;
      try {
        assert.equal((await refund(shop, sale.payfacReference, 48900)).status, 200);
        pendingId = (await refundsRecorded(shop, sale.payfacReference))[0]!.processor_reference!;
      } finally {
        stripe.refundsPending = false;
      }
      await stripe.settleRefund(pendingId, "failed");
      const [failed] = await refundsRecorded(shop, sale.payfacReference);
      assert.equal(failed!.state, "failed");
      await waitUntil(async () => eventsOf(sale.reference, "Refund").length >= 1, 10_000, "the failed Refund webhook");
      assert.equal(eventsOf(sale.reference, "Refund")[0].success, "false");
      const again = await refund(shop, sale.payfacReference, 48900);
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal((await refundsRecorded(shop, sale.payfacReference))[1]!.state, "succeeded");
      assertStripeAcceptedAll();
    });

    it("reverses a sale: Stripe refunds what is left, one Refund webhook", async () => {
      const sale = await sellLink();
      await reverseReceived(shop, sale.payfacReference);
      const [reversal] = await refundsRecorded(shop, sale.payfacReference);
      assert.deepEqual([reversal!.kind, reversal!.state, reversal!.amount], ["reversal", "succeeded", 48900]);
      await waitUntil(async () => eventsOf(sale.reference, "Refund").length >= 1, 10_000, "the merchant's Refund webhook");
      await settle();
      const webhooks = eventsOf(sale.reference, "Refund");
      assert.equal(webhooks.length, 1);
      assert.deepEqual([webhooks[0].amount, webhooks[0].success], ["48900", "true"]);
      assert.equal(chargeOf(sale.payfacReference).amount_refunded, 48900);
      assertStripeAcceptedAll();
    });

    it("a manual-capture session is authorised at Stripe and captured once; a second capture is declined; reverse refunds the capture", async () => {
      // No delayed capture or adjustable authorisation at Stripe: refused when the session is made.
      for (const field of [{ captureHoursDelay: 24 }, { isPreAuth: true, isManualCapture: true }]) {
        const refused = await shop.api("POST", "/api/v1/hostedcheckout", {
          amount: 48900,
          currency: "ISK",
          returnUrl: "http://shop.example/order/1",
          reference: "1",
          terminalIdentifier: shop.terminalIdentifier,
          ...field,
        });
        assert.equal(refused.status, 400, JSON.stringify(refused.body));
      }
      const { payfacReference } = await payManualCaptureSession(shop, payOnStripePage(shop));
      const [atStripe] = sent("POST /v1/checkout/sessions").slice(-1);
      assert.equal(new URLSearchParams(atStripe!.body).get("payment_intent_data[capture_method]"), "manual");
      assert.equal(stripe.paymentIntents.get(payfacReference).status, "requires_capture");

      const capture = (amount: number) => captureSessionPayment(shop, payfacReference, amount);
      const captured = () => capturesRecorded(shop, payfacReference);
      const first = await capture(30000);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.body.status, "Received");
      assert.equal((await captured())[0]!.state, "approved");
      assert.equal(new URLSearchParams(sent("POST /v1/payment_intents/{intent}/capture")[0]!.body).get("amount_to_capture"), "30000");
      assert.equal(stripe.paymentIntents.get(payfacReference).amount_received, 30000);
      // Stripe released the rest when it captured: a second capture is refused there, and ends declined.
      assert.equal((await capture(10000)).status, 200);
      const [, second] = await captured();
      assert.equal(second!.state, "declined");
      await waitUntil(async () => eventsOf("77", "Capture").length >= 2, 10_000, "the Capture webhooks");
      assert.deepEqual(
        eventsOf("77", "Capture").map((body) => [body.amount, body.success]),
        [
          ["30000", "true"],
          ["10000", "false"],
        ],
      );

      await reverseReceived(shop, payfacReference, "77");
      const [reversal] = await refundsRecorded(shop, payfacReference);
      assert.equal(reversal!.state, "succeeded");
      // Only the captured part is refunded at Stripe (the rest was released there already).
      const [refundSent] = sent("POST /v1/refunds").slice(-1);
      assert.equal(new URLSearchParams(refundSent!.body).get("amount"), null, "all that is left at Stripe");
      assert.equal(chargeOf(payfacReference).amount_refunded, 30000);
      await waitUntil(async () => eventsOf("77", "Refund").length >= 1, 10_000, "the Refund webhook");
      assertStripeAcceptedAll();
    });

    it("a charge whose answer is lost is answered 503 and voided at Stripe under the same key: nothing stays charged", async () => {
      const token = await saveCard();
      stripe.loseNextAnswer(/^\/v1\/payment_intents$/);
      const lost = await chargeByToken(shop, token, "lost-1");
      assert.equal(lost.status, 503, JSON.stringify(lost.body));
      assert.equal(lost.body.errorCode, "5002");
      const atShop = await tokenPaymentOf(shop, "lost-1");
      assert.deepEqual([atShop.state, atShop.payfac_reference], ["failed", null]);
      // Stripe made one PaymentIntent (the replay got the stored answer), and it is refunded.
      const intents = [...stripe.paymentIntents.values()].filter((intent) => intent.metadata?.checkoutReference === atShop.id);
      assert.equal(intents.length, 1);
      const keyed = sent("POST /v1/payment_intents").filter((request) => request.idempotencyKey === atShop.id);
      assert.equal(keyed.length, 2, "the charge and its replay");
      assert.equal(chargeOf(intents[0].id).amount_refunded, 129000);
      const [voided] = sent("POST /v1/refunds").slice(-1);
      assert.equal(voided!.idempotencyKey, `reverse-${atShop.id}`);
      await settle();
      assert.equal(eventsOf("lost-1", "Authorization").length, 0, "the merchant is told of no payment");
      assertStripeAcceptedAll();
    });

    it("refunds racing on two instances never pass the sale, and Stripe is asked only for those that fit", {
      skip: backend.name !== "postgres" && "a second instance needs PostgreSQL",
    }, async () => {
      const sale = await refundRaceOnTwoInstances(context, sellLink, () => sent("POST /v1/refunds").length);
      assert.equal(chargeOf(sale.payfacReference).amount_refunded, 45000, "Stripe refunded exactly what Paylink reserved");
      assertStripeAcceptedAll();
    });

    it("every request Paylink sent, Stripe's published schema accepts; no card number, key or secret is logged", () => {
      assert.ok(stripe.requests.length > 0);
      assertStripeAcceptedAll();
      const logged = context.logs.join("\n");
      assert.ok(logged.length > 0, "the shop logged");
      for (const secret of [STRIPE_TEST_CARDS.approved, stripe.secretKey, stripe.webhookSecret]) assert.ok(!logged.includes(secret));
    });

    /** The charge of a PaymentIntent, as the fake keeps it. */
    function chargeOf(paymentIntentId: string) {
      const intent = stripe.paymentIntents.get(paymentIntentId);
      return stripe.charges.get(intent.latest_charge);
    }
    async function stripeMethod(token: string) {
      const response = await fetch(`${stripe.baseUrl}/v1/payment_methods/${token}`, {
        headers: { authorization: `Bearer ${stripe.secretKey}` },
      });
      return (await response.json()) as { customer: string };
    }
    function assertStripeAcceptedAll() {
      for (const request of stripe.requests) assert.deepEqual(request.errors, [], `${request.route}: ${request.errors.join("; ")}`);
    }
  });
}
