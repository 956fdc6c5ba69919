// The WooCommerce order flow end to end, on every backend, written from the spec's request and
// webhook shapes (docs/api.md#hosted-checkout-sessions): session create → the shopper pays on the
// page → the return URL carries checkoutReference → status Completed with payfacReference → an
// Authorization webhook, signed, whose merchantReference is the order id. Then a subscription
// session: Tokenization after Authorization, and a renewal charged with that token.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { verifyPaymentWebhook } from "paylink-sdk";
import { WebhookWorker } from "../../src/webhooks/worker.ts";
import { chargeBody } from "../support/after-sale.ts";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { createSession, paySession, sessionStatus, wooCommerceBody } from "../support/sessions.ts";
import { CARDS, getPage, textOf } from "../support/shopper.ts";
import { waitUntil } from "../support/wait.ts";
import { type Receiver, startReceiver, testKeyring } from "../webhooks/support.ts";

for (const backend of testBackends()) {
  describe(`the WooCommerce order flow (${backend.name})`, () => {
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

    it("create (trailing slash) → pay → return with checkoutReference → Completed → signed Authorization for the order", async () => {
      const created = await createSession(server);
      assert.match(created.checkoutReference, /^[a-z0-9]{50}$/);
      assert.equal(created.url, `${server.baseUrl}/checkout/${created.checkoutReference}`);

      const fresh = await sessionStatus(server, created.checkoutReference);
      assert.equal(fresh.status, 200);
      assert.equal(fresh.body.status, "New");
      assert.equal(fresh.body.payfacReference, null, "null, never an empty string");

      const page = await getPage(server.baseUrl, new URL(created.url).pathname);
      assert.equal(page.status, 200);
      assert.match(textOf(page.html), /Lopapeysa/);
      assert.match(textOf(page.html), /Shipping/);
      assert.doesNotMatch(page.html, /name="EmailAddress"/, "no shopper-info fields on a session page");

      const paid = await paySession(server.baseUrl, created.checkoutReference);
      assert.equal(paid.status, 303);
      assert.equal(
        paid.location,
        `http://shop.example/checkout/order-received/1042/?key=wc_order_abc&utm=1&checkoutReference=${created.checkoutReference}`,
      );

      const done = await sessionStatus(server, created.checkoutReference);
      assert.equal(done.body.status, "Completed");
      assert.match(done.body.payfacReference, /^[0-9A-Z]{16}$/);
      // The older plugins' POST reads the same.
      const posted = await sessionStatus(server, created.checkoutReference, "POST");
      assert.deepEqual([posted.status, posted.body.status, posted.body.payfacReference], [200, "Completed", done.body.payfacReference]);

      await waitUntil(async () => webhooksAbout(created.checkoutReference).length >= 1, 10_000, "the webhooks");
      const [authorization] = webhooksAbout(created.checkoutReference);
      assert.equal(authorization.additionalData.eventType, "Authorization");
      assert.equal(authorization.success, "true");
      assert.equal(authorization.merchantReference, "1042");
      assert.equal(authorization.payfacReference, done.body.payfacReference);
      assert.equal(authorization.amount, "489000");
      assert.equal(authorization.additionalData.paymentLinkIdentifier, undefined);
      assert.ok(verifyPaymentWebhook(authorization, hmacKey), "the signature verifies");

      // The payment reads with the order as merchantReference and the session as checkoutReference.
      const payment = await server.api("GET", `/api/v1/payments/${done.body.payfacReference}`);
      assert.equal(payment.status, 200);
      assert.equal(payment.body.payment.merchantReference, "1042");
      assert.equal(payment.body.payment.checkoutReference, created.checkoutReference);
      assert.equal(payment.body.payment.paymentLinkReference, null);

      // Paid: the page is closed.
      const closed = await getPage(server.baseUrl, `/checkout/${created.checkoutReference}`);
      assert.equal(closed.status, 410);

      // The shop refunds the order: the Refund names the session and the order too, and the
      // session stays Completed.
      const refund = await server.api("POST", "/api/v1/modification/refund", {
        payfacReference: done.body.payfacReference,
        amount: 30000,
        currency: "ISK",
        reference: "1042-shipping",
      });
      assert.equal(refund.status, 200, JSON.stringify(refund.body));
      await waitUntil(async () => webhooksAbout(created.checkoutReference).length >= 2, 10_000, "the Refund webhook");
      const refunded = webhooksAbout(created.checkoutReference).find((m) => m.additionalData.eventType === "Refund");
      assert.deepEqual([refunded.merchantReference, refunded.amount, refunded.success], ["1042", "30000", "true"]);
      assert.equal(refunded.additionalData.originalPayfacReference, done.body.payfacReference);
      assert.equal((await sessionStatus(server, created.checkoutReference)).body.status, "Completed");
    });

    it("a decline shows the form again (402), the session stays New, and an Authorization with success false goes out", async () => {
      const created = await createSession(server, { reference: "1043" });
      const declined = await paySession(server.baseUrl, created.checkoutReference, CARDS.refused);
      assert.equal(declined.status, 402);
      assert.match(declined.html, /name="cardNumber"/);
      assert.equal((await sessionStatus(server, created.checkoutReference)).body.status, "New");
      await waitUntil(async () => webhooksAbout(created.checkoutReference).length >= 1, 10_000, "the webhooks");
      const [message] = webhooksAbout(created.checkoutReference);
      assert.deepEqual([message.additionalData.eventType, message.success, message.merchantReference], ["Authorization", "false", "1043"]);
      // The shopper tries another card on the same session.
      const paid = await paySession(server.baseUrl, created.checkoutReference);
      assert.equal(paid.status, 303);
      assert.equal((await sessionStatus(server, created.checkoutReference)).body.status, "Completed");
    });

    it("a subscription session sends Tokenization after Authorization, and the token pays the renewal", async () => {
      const created = await createSession(server, { reference: "sub-77", recurringProcessingModel: "Subscription" });
      const paid = await paySession(server.baseUrl, created.checkoutReference);
      assert.equal(paid.status, 303);
      await waitUntil(async () => webhooksAbout(created.checkoutReference).length >= 2, 10_000, "the webhooks");
      // Sent in parallel, so they may arrive in either order.
      const messages = webhooksAbout(created.checkoutReference);
      const first = messages.find((m) => m.additionalData.eventType === "Authorization");
      const second = messages.find((m) => m.additionalData.eventType === "Tokenization");
      assert.ok(first && second, "an Authorization and a Tokenization");
      assert.equal(first.merchantReference, "sub-77");
      assert.equal(second.payfacReference, first.payfacReference);
      assert.equal(second.merchantReference, "sub-77");
      const token = second.additionalData.token;
      assert.match(token, /^[0-9A-Z]{16}$/);

      const renewal = await server.api(
        "POST",
        "/api/v1/payment",
        chargeBody(server, token, { reference: "sub-77-renewal-1", amount: 489000 }),
      );
      assert.equal(renewal.status, 200, JSON.stringify(renewal.body));
      assert.equal(renewal.body.resultCode, "Authorised");

      // The live gateway's path disables the card; a second renewal is refused.
      const disabled = await server.api("POST", "/api/v1/payment/disable-token", { tokenValue: token });
      assert.equal(disabled.status, 200);
      assert.equal(disabled.body.success, true);
      assert.equal(disabled.body.message, "Token disabled successfully.");
      const refused = await server.api("POST", "/api/v1/payment", chargeBody(server, token, { reference: "sub-77-renewal-2" }));
      assert.equal(refused.status, 409);
      await waitUntil(
        async () => webhooksAbout(created.checkoutReference).some((m) => m.additionalData.eventType === "TokenDisabled"),
        10_000,
        "the TokenDisabled webhook",
      );
      const tokenDisabled = webhooksAbout(created.checkoutReference).find((m) => m.additionalData.eventType === "TokenDisabled");
      assert.deepEqual([tokenDisabled.merchantReference, tokenDisabled.additionalData.token], ["sub-77", token]);
    });

    it("an amount-0 CardOnFile session saves the card only: Completed, one Tokenization with amount 0", async () => {
      const created = await createSession(server, { reference: "ekom-5", amount: 0, recurringProcessingModel: "CardOnFile", items: [] });
      const page = await getPage(server.baseUrl, `/checkout/${created.checkoutReference}`);
      assert.equal(page.status, 200);
      const paid = await paySession(server.baseUrl, created.checkoutReference);
      assert.equal(paid.status, 303);
      const status = await sessionStatus(server, created.checkoutReference);
      assert.equal(status.body.status, "Completed");
      assert.match(status.body.payfacReference, /^[0-9A-Z]{16}$/);
      await waitUntil(async () => webhooksAbout(created.checkoutReference).length >= 1, 10_000, "the webhooks");
      const messages = webhooksAbout(created.checkoutReference);
      assert.deepEqual(
        messages.map((m) => [m.additionalData.eventType, m.amount, m.merchantReference]),
        [["Tokenization", "0", "ekom-5"]],
      );
    });

    it("an expired session reads Expired and its page answers 410; abandonUrl is the page's way back", async () => {
      const created = await createSession(server, {
        reference: "1044",
        abandonUrl: "http://shop.example/cart",
        expiresAt: new Date(Date.now() + 60_000).toISOString(),
      });
      const open = await getPage(server.baseUrl, `/checkout/${created.checkoutReference}`);
      assert.match(open.html, /href="http:\/\/shop\.example\/cart"/);
      await server.db
        .updateTable("payment_links")
        .set({ valid_until: new Date(Date.now() - 1000) })
        .where("reference", "=", created.checkoutReference)
        .execute();
      const status = await sessionStatus(server, created.checkoutReference);
      assert.deepEqual([status.body.status, status.body.payfacReference], ["Expired", null]);
      const closed = await getPage(server.baseUrl, `/checkout/${created.checkoutReference}`);
      assert.equal(closed.status, 410);
      assert.match(closed.html, /href="http:\/\/shop\.example\/cart"/);
      const posted = await paySession(server.baseUrl, created.checkoutReference);
      assert.equal(posted.status, 410);
    });

    it("the same order id may have several sessions (a retry makes a new one)", async () => {
      const body = wooCommerceBody(server, { reference: "1045" });
      const a = await server.api("POST", "/api/v1/hostedcheckout", body);
      const b = await server.api("POST", "/api/v1/hostedcheckout", body);
      assert.equal(a.status, 200);
      assert.equal(b.status, 200);
      assert.notEqual(a.body.checkoutReference, b.body.checkoutReference);
    });
  });
}
