// After the sale through the live gateway (Straumur), end to end on every backend: refunds,
// reversals and captures are answered "Received" and settled by the gateway's own Refund and
// Capture webhooks; saved cards are charged at the gateway, and a charge whose answer is lost is
// found by replaying it and reversed. The gateway is a second Paylink with the sandbox
// (test/support/gateway.ts), which validates every request the adapter sends.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { computePaymentSignature } from "paylink-sdk";
import { reconcileAfterSale } from "../../src/services/reconcile-after-sale.ts";
import { afterSaleDeps, refund } from "../support/after-sale.ts";
import { testBackends } from "../support/databases.ts";
import { type LocalGateway, type ShopOnGateway, startShopOnGateway } from "../support/gateway.ts";
import type { TestServer } from "../support/harness.ts";
import {
  captureSessionPayment,
  capturesRecorded,
  chargeByToken,
  type PayOnProcessorPage,
  payManualCaptureSession,
  refundRaceOnTwoInstances,
  refundsRecorded,
  refundsSettled,
  reverseReceived,
  sellLinkOnProcessorPage,
  tokenPaymentOf,
  waitForReceipt,
} from "../support/processor-after-sale.ts";
import { paySession } from "../support/sessions.ts";
import { CARDS } from "../support/shopper.ts";
import { waitUntil } from "../support/wait.ts";

for (const backend of testBackends()) {
  describe(`after the sale through the live gateway (${backend.name})`, () => {
    let context: ShopOnGateway;
    let gateway: LocalGateway;
    let shop: TestServer;

    before(async () => {
      context = await startShopOnGateway(backend);
      ({ gateway, shop } = context);
    });
    after(async () => {
      await context?.close();
    });

    /**
     * The shopper pays with `card` on the gateway's page (a session of the gateway's own) and goes
     * back to the shop, whose page waits for the gateway's webhooks (a saved card's token comes with
     * its Tokenization webhook).
     */
    const payOnGateway =
      (card: string = CARDS.visa): PayOnProcessorPage =>
      async (location, expected) => {
        const paid = await paySession(gateway.origin, new URL(location).pathname.split("/").pop()!, card);
        assert.equal(paid.status, 303);
        await waitForReceipt(shop, new URL(paid.location!).pathname, expected);
      };
    /** A link sold (or a card saved) on the gateway's page: the approved attempt. */
    const sellLink = (options: Record<string, unknown> = {}, card: string = CARDS.visa) =>
      sellLinkOnProcessorPage(shop, payOnGateway(card), options);
    const gatewayCalls = (path: RegExp) => gateway.sent.filter((request) => path.test(request.path));
    const eventsOf = (reference: string, eventType: string) =>
      context.merchantWebhooks(reference).filter((body) => body.additionalData.eventType === eventType);
    /** Saved cards disabled at the gateway on purpose: its refusals of their charges are expected. */
    const disabledAtGateway = new Set<string>();
    /** Every request the adapter sent, the gateway accepted by its own shapes. */
    const assertGatewayAcceptedAll = () => {
      for (const request of gateway.sent.filter((sent) => sent.path.startsWith("/api/"))) {
        if (request.status === 409 && [...disabledAtGateway].some((token) => request.body.includes(token))) continue;
        assert.ok(request.status < 300, `${request.method} ${request.path} → ${request.status}: ${request.body}`);
      }
    };

    it("refunds in part and then in full: Received at once, settled by the gateway's Refund webhooks", async () => {
      const sale = await sellLink();
      const first = await shop.api("POST", "/api/v1/modification/refund", {
        payfacReference: sale.payfacReference,
        amount: 10000,
        currency: "ISK",
        reference: "return-1",
      });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.body.status, "Received");
      // The gateway was asked under the refund's own key, for the sale it took.
      const [sent] = gatewayCalls(/^\/api\/v1\/modification\/refund$/).slice(-1);
      assert.deepEqual(JSON.parse(sent!.body).payfacReference, sale.payfacReference);
      assert.equal(JSON.parse(sent!.body).amount, 10000);

      // Settled by the gateway's Refund webhook.
      assert.equal((await refundsSettled(shop, sale.payfacReference, 1))[0]!.state, "succeeded");
      const rest = await refund(shop, sale.payfacReference, 38900);
      assert.equal(rest.status, 200, JSON.stringify(rest.body));
      const refunds = await refundsSettled(shop, sale.payfacReference, 2);
      assert.deepEqual(
        refunds.map((row) => [row.amount, row.state]),
        [
          [10000, "succeeded"],
          [38900, "succeeded"],
        ],
      );
      assert.ok(
        refunds.every((row) => /^[0-9A-Z]{16}$/.test(row.processor_reference ?? "")),
        "the gateway's references kept",
      );
      // Nothing is left: a third refund is refused before the gateway is asked.
      const calls = gatewayCalls(/^\/api\/v1\/modification\/refund$/).length;
      const over = await refund(shop, sale.payfacReference, 100);
      assert.equal(over.status, 400);
      assert.equal(over.body.errorCode, "2019");
      assert.equal(gatewayCalls(/^\/api\/v1\/modification\/refund$/).length, calls);
      // The merchant gets one Refund webhook per refund, with the amount the gateway refunded.
      await waitUntil(async () => eventsOf(sale.reference, "Refund").length >= 2, 10_000, "the merchant's Refund webhooks");
      const read = await shop.api("GET", `/api/v1/payments/${sale.payfacReference}`);
      assert.equal(read.body.payment.refundedAmount, 48900);
      assertGatewayAcceptedAll();
    });

    it("reverses a sale: Received, then one Refund webhook when the gateway reports it", async () => {
      const sale = await sellLink();
      await reverseReceived(shop, sale.payfacReference);
      assert.equal((await refundsSettled(shop, sale.payfacReference, 1))[0]!.state, "succeeded");
      await waitUntil(async () => eventsOf(sale.reference, "Refund").length >= 1, 10_000, "the merchant's Refund webhook");
      const [told] = eventsOf(sale.reference, "Refund");
      assert.equal(told.success, "true");
      assert.equal(told.amount, "48900");
      assert.equal(told.additionalData.originalPayfacReference, sale.payfacReference);
      assert.equal(gatewayCalls(/^\/api\/v1\/modification\/reverse$/).length >= 1, true);
      assertGatewayAcceptedAll();
    });

    it("a session with manual capture is authorised at the gateway, captured in part, and the rest released", async () => {
      const { payfacReference } = await payManualCaptureSession(shop, payOnGateway());
      const atGateway = JSON.parse(gatewayCalls(/^\/api\/v1\/hostedcheckout$/).pop()!.body);
      assert.equal(atGateway.isManualCapture, true, "the gateway authorises only");

      // Money only reserved: a refund is refused until something is captured.
      const early = await refund(shop, payfacReference, 100);
      assert.equal(early.status, 409, JSON.stringify(early.body));

      const capture = await captureSessionPayment(shop, payfacReference, 30000);
      assert.equal(capture.status, 200, JSON.stringify(capture.body));
      assert.equal(capture.body.status, "Received");
      await waitUntil(
        async () => (await capturesRecorded(shop, payfacReference))[0]?.state === "approved",
        10_000,
        "the gateway's Capture webhook",
      );
      await waitUntil(async () => eventsOf("77", "Capture").length >= 1, 10_000, "the merchant's Capture webhook");
      const [captureEvent] = eventsOf("77", "Capture");
      assert.equal(captureEvent.amount, "30000");
      assert.equal(captureEvent.success, "true");

      // Reverse: the captured part refunded, the rest released; one Refund webhook.
      await reverseReceived(shop, payfacReference, "77");
      assert.equal((await refundsSettled(shop, payfacReference, 1))[0]!.state, "succeeded");
      await waitUntil(async () => eventsOf("77", "Refund").length >= 1, 10_000, "the merchant's Refund webhook");
      const read = await shop.api("GET", `/api/v1/payments/${payfacReference}`);
      assert.equal(read.body.payment.capturedAmount, 30000);
      assert.equal(read.body.payment.refunds[0].status, "Succeeded");
      assertGatewayAcceptedAll();
    });

    it("charges a card saved at the gateway: approved, refused, and refundable like any payment", async () => {
      const saved = await sellLink({ type: "TokenizeByLink", amount: 0 });
      assert.match(saved.token ?? "", /^[0-9A-Z]{16}$/);
      const approved = await chargeByToken(shop, saved.token!, "renewal-2026-12");
      assert.equal(approved.status, 200, JSON.stringify(approved.body));
      assert.equal(approved.body.resultCode, "Authorised");
      assert.equal(approved.body.merchantReference, "renewal-2026-12");
      assert.equal(approved.body.additionalData.cardSummary, "1111");
      // The gateway charged its own token, keyed by Paylink's payment.
      const sent = JSON.parse(gatewayCalls(/^\/api\/v1\/payment$/).pop()!.body);
      assert.equal(sent.tokenDetails.tokenValue, saved.token);
      assert.equal(sent.terminalIdentifier, gateway.server.terminalIdentifier);
      assert.equal(sent.reference, approved.body.checkoutReference);
      await waitUntil(async () => eventsOf("renewal-2026-12", "Authorization").length >= 1, 10_000, "the merchant's Authorization");
      assert.equal(eventsOf("renewal-2026-12", "Authorization")[0].success, "true");

      // The sandbox's "not enough balance" card: saved, then every charge of it refused.
      const poor = await sellLink({ type: "TokenizeByLink", amount: 0 }, "4000000000000341");
      const refused = await chargeByToken(shop, poor.token!, "renewal-poor");
      assert.equal(refused.status, 200, JSON.stringify(refused.body));
      assert.equal(refused.body.resultCode, "Refused");
      assert.equal(refused.body.refusalReason, "Not enough balance");

      // The charge is a payment like any other: refunded through the gateway.
      const refunded = await refund(shop, approved.body.payfacReference, 129000);
      assert.equal(refunded.status, 200, JSON.stringify(refunded.body));
      assert.equal((await refundsSettled(shop, approved.body.payfacReference, 1))[0]!.state, "succeeded");
      assertGatewayAcceptedAll();
    });

    it("a charge whose answer is lost is answered 503 and reversed at the gateway: nothing stays charged", async () => {
      const saved = await sellLink({ type: "TokenizeByLink", amount: 0 });
      gateway.loseNextAnswer(/^\/api\/v1\/payment$/);
      const lost = await chargeByToken(shop, saved.token!, "lost-1", { amount: 5000 });
      assert.equal(lost.status, 503, JSON.stringify(lost.body));
      assert.equal(lost.body.errorCode, "5002");
      // The gateway charged once (the lost answer's charge, found again by its key) and reversed it.
      const charges = await gateway.server.db
        .selectFrom("token_payments")
        .select(["payfac_reference", "state"])
        .where("state", "=", "approved")
        .where("merchant_reference", "like", "%")
        .execute();
      const reversals = gatewayCalls(/^\/api\/v1\/modification\/reverse$/).map((request) => JSON.parse(request.body));
      const reversedCharge = charges.find((row) => reversals.some((body) => body.payfacReference === row.payfac_reference));
      assert.ok(reversedCharge, "the lost charge was reversed at the gateway");
      const gatewayRefund = await gateway.server.db
        .selectFrom("refunds")
        .select("state")
        .where("original_payfac_reference", "=", reversedCharge.payfac_reference!)
        .executeTakeFirstOrThrow();
      assert.equal(gatewayRefund.state, "succeeded");
      const atShop = await tokenPaymentOf(shop, "lost-1");
      assert.equal(atShop.state, "failed");
      assert.equal(atShop.payfac_reference, null, "never a payment");
      assert.equal(eventsOf("lost-1", "Authorization").length, 0);
    });

    it("a charge the gateway wants 3-D Secure for: RedirectShopper, Paylink forwards the shopper, the webhook decides", async () => {
      const saved = await sellLink({ type: "TokenizeByLink", amount: 0 });
      gateway.requireShopperFor(saved.token!);
      const charge = (reference: string) =>
        chargeByToken(shop, saved.token!, reference, { amount: 7700, returnUrl: "http://shop.example/after-3ds" });
      const answered = await charge("order-3ds");
      assert.equal(answered.status, 200, JSON.stringify(answered.body));
      assert.equal(answered.body.resultCode, "RedirectShopper");
      const redirect = new URL(answered.body.redirect.url);
      assert.equal(redirect.origin, shop.baseUrl, "a Paylink address, not the processor's");
      assert.equal(answered.body.redirect.method, "GET");
      const pending = () => tokenPaymentOf(shop, "order-3ds");
      assert.equal((await pending()).state, "pending");
      assert.equal(eventsOf("order-3ds", "Authorization").length, 0);

      // The shopper follows the link, authenticates at the gateway and goes back to the shop.
      const forwarded = await fetch(redirect, { redirect: "manual" });
      assert.equal(forwarded.status, 303);
      const challenge = new URL(forwarded.headers.get("location")!);
      assert.equal(challenge.origin, gateway.origin);
      const confirmed = await fetch(challenge, { method: "POST", redirect: "manual" });
      assert.equal(confirmed.status, 303);
      assert.equal(confirmed.headers.get("location"), "http://shop.example/after-3ds");
      await waitUntil(async () => (await pending()).state === "approved", 10_000, "the gateway's Authorization webhook");
      await waitUntil(async () => eventsOf("order-3ds", "Authorization").length >= 1, 10_000, "the merchant's Authorization");
      const [event] = eventsOf("order-3ds", "Authorization");
      assert.equal(event.success, "true");
      assert.equal(event.additionalData.threeDAuthenticated, "true");
      assert.equal(event.payfacReference, (await pending()).payfac_reference);
      // Over: the address leads back to the shop.
      const again = await fetch(redirect, { redirect: "manual" });
      assert.equal(again.headers.get("location"), "http://shop.example/after-3ds");

      // A shopper who opens the gateway's page but takes too long: the charge is given up…
      const late = await charge("order-3ds-late");
      assert.equal(late.body.resultCode, "RedirectShopper");
      const lateChallenge = (await fetch(late.body.redirect.url, { redirect: "manual" })).headers.get("location")!;
      await shop.db
        .updateTable("token_payments")
        .set({ created_at: new Date(Date.now() - 31 * 60_000) })
        .where("merchant_reference", "=", "order-3ds-late")
        .execute();
      const sweep = await reconcileAfterSale(afterSaleDeps(shop));
      assert.equal(sweep.chargesReversed, 1);
      const lateCharge = () => tokenPaymentOf(shop, "order-3ds-late");
      assert.equal((await lateCharge()).state, "failed");
      const over = await fetch(late.body.redirect.url, { redirect: "manual" });
      assert.equal(over.headers.get("location"), "http://shop.example/after-3ds", "Paylink no longer forwards to the page");
      // …and when they confirm after all, the gateway's approval is reversed there: never a payment.
      assert.equal((await fetch(lateChallenge, { method: "POST", redirect: "manual" })).status, 303);
      const { id } = await lateCharge();
      const gatewayCharge = () =>
        gateway.server.db.selectFrom("token_payments").select("payfac_reference").where("merchant_reference", "=", id).executeTakeFirst();
      await waitUntil(async () => (await gatewayCharge())?.payfac_reference, 10_000, "the late charge at the gateway");
      const { payfac_reference } = (await gatewayCharge())!;
      await waitUntil(
        async () =>
          (
            await gateway.server.db
              .selectFrom("refunds")
              .select("state")
              .where("original_payfac_reference", "=", payfac_reference!)
              .executeTakeFirst()
          )?.state === "succeeded",
        10_000,
        "the late approval reversed at the gateway",
      );
      assert.equal((await lateCharge()).state, "failed");
      assert.equal(eventsOf("order-3ds-late", "Authorization").length, 0, "the merchant is told of no payment");
      assertGatewayAcceptedAll();
    });

    it("a charge the gateway refuses outright (its token disabled there) ends failed: nothing charged, no webhook", async () => {
      const saved = await sellLink({ type: "TokenizeByLink", amount: 0 });
      disabledAtGateway.add(saved.token!);
      const disabled = await gateway.server.api("POST", "/api/v1/tokens/disable", { tokenValue: saved.token });
      assert.equal(disabled.status, 200, JSON.stringify(disabled.body));
      const refused = await chargeByToken(shop, saved.token!, "refused-at-gateway", { amount: 5000 });
      assert.equal(refused.status, 503, JSON.stringify(refused.body));
      assert.match(refused.body.errorMessage, /nothing was charged/);
      const atShop = await tokenPaymentOf(shop, "refused-at-gateway");
      assert.deepEqual([atShop.state, atShop.payfac_reference], ["failed", null]);
      assert.equal(eventsOf("refused-at-gateway", "Authorization").length, 0);
    });

    it("a refund whose answer and webhook are both lost is asked again under its key, and settled once", async () => {
      const sale = await sellLink();
      await gateway.pauseWebhooks();
      gateway.loseNextAnswer(/^\/api\/v1\/modification\/refund$/);
      const lost = await refund(shop, sale.payfacReference, 20000);
      assert.equal(lost.status, 200, JSON.stringify(lost.body));
      assert.equal(lost.body.status, "Received");
      const [pending] = await refundsRecorded(shop, sale.payfacReference);
      assert.equal(pending!.state, "pending");
      assert.equal(pending!.processor_reference, null);
      // The gateway made the refund. A notification naming it by the gateway's reference alone
      // (as a processor that echoes nothing of Paylink's would) arrives before Paylink knows that reference.
      const gatewayRefund = await gateway.server.db
        .selectFrom("refunds")
        .select("payfac_reference")
        .where("original_payfac_reference", "=", sale.payfacReference)
        .executeTakeFirstOrThrow();
      const notification = {
        checkoutReference: null,
        payfacReference: gatewayRefund.payfac_reference,
        merchantReference: sale.attempt,
        amount: "20000",
        currency: "ISK",
        reason: "",
        success: "true",
        additionalData: { eventType: "Refund", originalPayfacReference: sale.payfacReference },
      };
      const send = () =>
        fetch(`${shop.baseUrl}/processors/${shop.terminalIdentifier}/webhook`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ ...notification, hmacSignature: computePaymentSignature(notification as never, context.gatewayHmacKey) }),
        });
      const early = await send();
      assert.equal(early.status, 503, "not acknowledged: the gateway sends it again later");
      assert.equal((await refundsRecorded(shop, sale.payfacReference))[0]!.state, "pending");

      // The sweep asks again under the same key: the gateway answers what it answered before.
      await shop.db
        .updateTable("refunds")
        .set({ next_attempt_at: new Date(Date.now() - 1000) })
        .where("original_payfac_reference", "=", sale.payfacReference)
        .execute();
      await reconcileAfterSale(afterSaleDeps(shop));
      const [received] = await refundsRecorded(shop, sale.payfacReference);
      assert.equal(received!.processor_reference, gatewayRefund.payfac_reference, "the same refund at the gateway, not a second one");
      assert.equal(
        (
          await gateway.server.db
            .selectFrom("refunds")
            .select("payfac_reference")
            .where("original_payfac_reference", "=", sale.payfacReference)
            .execute()
        ).length,
        1,
      );
      // Now the webhook (sent again, and again) settles it once; the gateway's own, let through at last, changes nothing.
      for (let i = 0; i < 3; i++) assert.equal((await send()).status, 200);
      assert.equal((await refundsRecorded(shop, sale.payfacReference))[0]!.state, "succeeded");
      gateway.resumeWebhooks();
      await waitUntil(async () => eventsOf(sale.reference, "Refund").length >= 1, 10_000, "the merchant's Refund webhook");
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(eventsOf(sale.reference, "Refund").length, 1);
    });

    it("refunds racing on two instances never pass the sale, and the gateway is asked only for those that fit", {
      skip: backend.name !== "postgres" && "a second instance needs PostgreSQL",
    }, async () => {
      const sale = await refundRaceOnTwoInstances(context, sellLink, () => gatewayCalls(/^\/api\/v1\/modification\/refund$/).length);
      const refunds = await refundsSettled(shop, sale.payfacReference, 9);
      assert.ok(
        refunds.every((row) => row.state === "succeeded"),
        "every refund settled by the gateway's webhooks",
      );
      const atGateway = await gateway.server.api("GET", `/api/v1/payments/${sale.payfacReference}`);
      assert.equal(atGateway.body.payment.refundedAmount, 45000, "the gateway refunded exactly what Paylink reserved");
      assertGatewayAcceptedAll();
    });

    it("a forged modification notification changes nothing (401), and one about another's payment is ignored", async () => {
      const sale = await sellLink();
      const notification = {
        checkoutReference: null,
        payfacReference: "FORGEDREFUND0001",
        merchantReference: sale.attempt,
        amount: "48900",
        currency: "ISK",
        reason: "",
        success: "true",
        additionalData: { eventType: "Refund", originalPayfacReference: sale.payfacReference },
      };
      const forged = await fetch(`${shop.baseUrl}/processors/${shop.terminalIdentifier}/webhook`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...notification, hmacSignature: computePaymentSignature(notification as never, "00".repeat(32)) }),
      });
      assert.equal(forged.status, 401);
      // Signed, but about a refund Paylink never asked for (made in the gateway's own portal): acknowledged, nothing recorded.
      const unknown = await fetch(`${shop.baseUrl}/processors/${shop.terminalIdentifier}/webhook`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...notification, hmacSignature: computePaymentSignature(notification as never, context.gatewayHmacKey) }),
      });
      assert.equal(unknown.status, 200);
      assert.equal((await refundsRecorded(shop, sale.payfacReference)).length, 0);
      const read = await shop.api("GET", `/api/v1/payments/${sale.payfacReference}`);
      assert.equal(read.body.payment.refundedAmount, 0);
    });
  });
}
