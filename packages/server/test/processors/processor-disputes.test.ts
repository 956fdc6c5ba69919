// Chargebacks and disputes as Adyen and Stripe report them, end to end on every backend: the
// processor's signed notification reaches the terminal's webhook address, each step is recorded
// once, the dispute stands where its latest step put it whatever the arrival order, the payment
// shows it, and a Dispute webhook goes only to the merchant's endpoint that opted in. A forged
// notification changes nothing. The processors are the local fakes, which send their published
// examples of these events (test/fixtures).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { payOnAdyenPage, type ShopOnAdyen, startShopOnAdyen } from "../support/adyen-shop.ts";
import { testBackends } from "../support/databases.ts";
import { sellLinkOnProcessorPage } from "../support/processor-after-sale.ts";
import type { ProcessorShop } from "../support/processor-shop.ts";
import { payOnStripePage, type ShopOnStripe, startShopOnStripe } from "../support/stripe-shop.ts";
import { waitUntil } from "../support/wait.ts";
import { type Receiver, startReceiver } from "../webhooks/support.ts";

/** A second endpoint of the merchant's, with Dispute events turned on; the shop's own has them off. */
async function disputeReceiver(context: ProcessorShop): Promise<Receiver> {
  const receiver = await startReceiver();
  const { shop } = context;
  const added = await shop.app.inject({
    method: "POST",
    url: `/admin/v1/merchants/${shop.merchantId}/webhooks`,
    headers: { authorization: `Bearer ${shop.adminToken}` },
    payload: { url: receiver.url, disputeEvents: true },
  });
  assert.equal(added.statusCode, 200, added.body);
  return receiver;
}

const disputeWebhooks = (receiver: Receiver, reference: string) =>
  receiver.requests
    .map((request) => JSON.parse(request.body))
    .filter((body) => body.merchantReference === reference && body.additionalData.eventType === "Dispute");

/** The payment's disputes as the merchant reads them. */
async function disputesOf(context: ProcessorShop, payfacReference: string) {
  const read = await context.shop.api("GET", `/api/v1/payments/${payfacReference}`);
  assert.equal(read.status, 200, JSON.stringify(read.body));
  return read.body.payment.disputes as Array<{ disputeReference: string; status: string; processorEvent: string; amount: number }>;
}

const quiet = () => new Promise((resolve) => setTimeout(resolve, 500));

for (const backend of testBackends()) {
  describe(`disputes reported by Adyen (${backend.name})`, () => {
    let context: ShopOnAdyen;
    let optedIn: Receiver;
    before(async () => {
      context = await startShopOnAdyen(backend);
      optedIn = await disputeReceiver(context);
    });
    after(async () => {
      await context?.close();
      await optedIn?.close();
    });

    it("each step once, the latest by Adyen's time decides, and only the endpoint that opted in hears of it", async () => {
      const { adyen, shop } = context;
      const sale = await sellLinkOnProcessorPage(shop, payOnAdyenPage(shop));
      const step = (eventCode: string, eventDate: string) =>
        adyen.disputeItem(eventCode, sale.payfacReference, { disputePspReference: "DSPADYEN0000001", eventDate });
      const notice = step("NOTIFICATION_OF_CHARGEBACK", "2026-11-02T10:00:00+01:00");
      for (let i = 0; i < 3; i++) assert.equal((await adyen.sendNotification([notice])).status, 200);
      await waitUntil(async () => disputeWebhooks(optedIn, sale.reference).length >= 1, 10_000, "the Dispute webhook");
      assert.deepEqual(
        (await disputesOf(context, sale.payfacReference)).map((d) => [d.disputeReference, d.status]),
        [["DSPADYEN0000001", "Open"]],
      );

      // Won back before Adyen's notice of the chargeback itself arrives.
      assert.equal((await adyen.sendNotification([step("CHARGEBACK_REVERSED", "2026-11-20T10:00:00+01:00")])).status, 200);
      assert.equal((await adyen.sendNotification([step("CHARGEBACK", "2026-11-05T10:00:00+01:00")])).status, 200);
      await waitUntil(async () => disputeWebhooks(optedIn, sale.reference).length >= 2, 10_000, "the second Dispute webhook");
      await quiet();
      const [dispute] = await disputesOf(context, sale.payfacReference);
      assert.equal(dispute!.status, "Won", "the late CHARGEBACK does not reopen it");
      assert.equal(dispute!.processorEvent, "CHARGEBACK_REVERSED");
      assert.deepEqual(
        disputeWebhooks(optedIn, sale.reference).map((body) => [body.additionalData.disputeStatus, body.additionalData.processorEvent]),
        [
          ["Open", "NOTIFICATION_OF_CHARGEBACK"],
          ["Won", "CHARGEBACK_REVERSED"],
        ],
      );
      assert.equal(
        context.merchantWebhooks(sale.reference).filter((body) => body.additionalData.eventType === "Dispute").length,
        0,
        "the endpoint that did not opt in gets none",
      );
      const rows = await shop.db
        .selectFrom("dispute_steps")
        .select("event_reference")
        .where("payfac_reference", "=", sale.payfacReference)
        .execute();
      assert.equal(rows.length, 3, "three steps, the repeated notice kept once");
    });

    it("a dispute notification with a bad HMAC changes nothing (401)", async () => {
      const { adyen, shop } = context;
      const sale = await sellLinkOnProcessorPage(shop, payOnAdyenPage(shop));
      const forged = adyen.disputeItem("NOTIFICATION_OF_CHARGEBACK", sale.payfacReference, { disputePspReference: "DSPADYEN0000002" });
      assert.equal((await adyen.sendNotification([forged], { hmacKey: "11".repeat(32) })).status, 401);
      assert.deepEqual(await disputesOf(context, sale.payfacReference), []);
    });
  });

  describe(`disputes reported by Stripe (${backend.name})`, () => {
    let context: ShopOnStripe;
    let optedIn: Receiver;
    before(async () => {
      context = await startShopOnStripe(backend);
      optedIn = await disputeReceiver(context);
    });
    after(async () => {
      await context?.close();
      await optedIn?.close();
    });

    it("charge.dispute.* events: each once, the dispute ends where Stripe closed it, only the opted-in endpoint hears", async () => {
      const { stripe, shop } = context;
      const sale = await sellLinkOnProcessorPage(shop, payOnStripePage(shop));
      const dispute = stripe.openDispute(sale.payfacReference);
      for (let i = 0; i < 3; i++) {
        assert.equal(await stripe.sendObjectEvent("charge.dispute.created", dispute, { eventId: "evt_dispute_created" }), 200);
      }
      await waitUntil(async () => disputeWebhooks(optedIn, sale.reference).length >= 1, 10_000, "the Dispute webhook");
      let [recorded] = await disputesOf(context, sale.payfacReference);
      assert.equal(recorded!.disputeReference, dispute.id);
      assert.equal(recorded!.status, "Open");
      assert.equal(recorded!.amount, 48900, "Stripe's amount in Paylink's minor units");

      // A second later by Stripe's clock: event times are whole seconds.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      assert.equal(await stripe.sendObjectEvent("charge.dispute.closed", { ...dispute, status: "lost" }), 200);
      await waitUntil(async () => disputeWebhooks(optedIn, sale.reference).length >= 2, 10_000, "the closing Dispute webhook");
      await quiet();
      [recorded] = await disputesOf(context, sale.payfacReference);
      assert.equal(recorded!.status, "Lost");
      assert.deepEqual(
        disputeWebhooks(optedIn, sale.reference).map((body) => body.additionalData.disputeStatus),
        ["Open", "Lost"],
      );
      assert.equal(
        context.merchantWebhooks(sale.reference).filter((body) => body.additionalData.eventType === "Dispute").length,
        0,
        "the endpoint that did not opt in gets none",
      );
    });

    it("a dispute event with a bad signature changes nothing (401)", async () => {
      const { stripe, shop } = context;
      const sale = await sellLinkOnProcessorPage(shop, payOnStripePage(shop));
      const dispute = stripe.openDispute(sale.payfacReference);
      assert.equal(await stripe.sendObjectEvent("charge.dispute.created", dispute, { secret: "whsec_not_the_endpoints" }), 401);
      assert.deepEqual(await disputesOf(context, sale.payfacReference), []);
    });
  });
}
