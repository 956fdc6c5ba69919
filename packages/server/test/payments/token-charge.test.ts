// Charging saved cards (docs/api.md#charge-a-saved-card) end to end, on every backend: a card is
// saved through the checkout page, charged with its token through the API, and every charge sends
// an Authorization webhook over real HTTP whose signatures verify with the SDK.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { verifyPaymentWebhook } from "paylink-sdk";
import { operatorActor } from "../../src/domain/audit/actor.ts";
import { SandboxProcessor } from "../../src/payments/sandbox.ts";
import { chargeSavedCard } from "../../src/services/charge-token.ts";
import { WebhookWorker } from "../../src/webhooks/worker.ts";
import { afterSaleDeps, charge, chargeBody, NO_BALANCE_CARD, saveCard } from "../support/after-sale.ts";
import { testBackends } from "../support/databases.ts";
import { as, assertError, assertOk } from "../support/fixtures.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { type Receiver, startReceiver, testKeyring } from "../webhooks/support.ts";

for (const backend of testBackends()) {
  describe(`charging a saved card (${backend.name})`, () => {
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

    /** The webhooks received so far about this checkoutReference. */
    const webhooksAbout = (checkoutReference: string) =>
      receiver.requests.map((request) => JSON.parse(request.body)).filter((body) => body.checkoutReference === checkoutReference);

    it("a card saved through the checkout page is charged twice: two Authorised payments, two signed Authorization webhooks", async () => {
      const token = await saveCard(server);
      const first = await charge(server, token, { reference: "invoice-1" });
      const second = await charge(server, token, { reference: "invoice-2", amount: 99900 });
      for (const [response, reference, amount] of [
        [first, "invoice-1", 129900],
        [second, "invoice-2", 99900],
      ] as const) {
        assertOk(response);
        assert.equal(response.body.resultCode, "Authorised");
        assert.equal(response.body.merchantReference, reference);
        assert.equal(response.body.amount, amount);
        assert.equal(response.body.currency, "ISK");
        assert.match(response.body.payfacReference, /^[0-9A-Z]{16}$/);
        assert.equal(response.body.refusalReason, undefined);
        assert.deepEqual(Object.keys(response.body.additionalData).sort(), [
          "authCode",
          "cardNumber",
          "cardSummary",
          "cardUsage",
          "paymentMethod",
        ]);
        assert.equal(response.body.additionalData.cardNumber, "411111******1111");
        assert.match(response.body.additionalData.authCode, /^\d{6}$/);
      }
      assert.notEqual(first.body.checkoutReference, second.body.checkoutReference, "each payment has its own checkoutReference");
      assert.notEqual(first.body.payfacReference, second.body.payfacReference);

      await receiver.waitFor(2, 20_000);
      for (const response of [first, second]) {
        await waitForWebhooks(() => webhooksAbout(response.body.checkoutReference).length >= 1);
        const [message, ...more] = webhooksAbout(response.body.checkoutReference);
        assert.equal(more.length, 0, "exactly one webhook per payment");
        assert.equal(verifyPaymentWebhook(JSON.stringify(message), hmacKey).valid, true, "the HMAC verifies with the SDK");
        assert.equal(message.additionalData.eventType, "Authorization");
        assert.equal(message.success, "true");
        assert.equal(message.merchantReference, response.body.merchantReference, "merchantReference is the payment's reference");
        assert.equal(message.payfacReference, response.body.payfacReference);
        assert.equal(message.amount, String(response.body.amount));
        assert.match(message.reason, /^\d{6}:1111:\d{2}\/\d{4}$/);
      }
      const read = await server.api("GET", `/api/v1/payments/${first.body.payfacReference}`);
      assertOk(read);
      assert.equal(read.body.payment.resultCode, "Authorised");
      assert.equal(read.body.payment.merchantReference, "invoice-1");
      assert.equal(read.body.payment.paymentLinkReference, null);
      assert.equal(read.body.payment.refundedAmount, 0);
    });

    it("the …0341 card saves, then its token payment is Refused with Not enough balance, also by a fresh sandbox (after a restart)", async () => {
      const token = await saveCard(server, NO_BALANCE_CARD);
      const refused = await charge(server, token);
      assertOk(refused);
      assert.equal(refused.body.resultCode, "Refused");
      assert.equal(refused.body.refusalReason, "Not enough balance");
      assert.equal(refused.body.additionalData.authCode, undefined);
      await waitForWebhooks(() => webhooksAbout(refused.body.checkoutReference).length >= 1);
      const [message] = webhooksAbout(refused.body.checkoutReference);
      assert.equal(message.success, "false");
      assert.equal(message.reason, "Not enough balance");
      assert.equal(verifyPaymentWebhook(JSON.stringify(message), hmacKey).valid, true);

      // The sandbox keeps no memory of the card: a new one, as after a restart, decides the same.
      const restarted = afterSaleDeps(server, new SandboxProcessor());
      const again = await chargeSavedCard(restarted, server.merchantId, operatorActor("127.0.0.1"), chargeBody(server, token));
      assert.equal(again.resultCode, "Refused");
      assert.equal(again.payment.reason, "Not enough balance");
      const read = await server.api("GET", `/api/v1/payments/${refused.body.payfacReference}`);
      assert.equal(read.body.payment.resultCode, "Refused");
      assert.equal(read.body.payment.refusalReason, "Not enough balance");
    });

    it("a token of another merchant, or unknown, is 404 2014 and charges nothing", async () => {
      const other = await server.addMerchant();
      const othersToken = await saveCard(
        { ...server, ...other, api: (m, p, b, h) => server.api(m, p, b, { ...as(other), ...h }) },
        undefined,
        as(other),
      );
      assertError(await charge(server, othersToken), 404, "2014", othersToken);
      assertError(await charge(server, "0000000000000000"), 404, "2014");
      const own = await server.api("POST", "/api/v1/payment", chargeBody(other, othersToken), as(other));
      assertOk(own);
      assert.equal(own.body.resultCode, "Authorised", "its own merchant can charge it");
    });

    it("a disabled token is 409 3003; disabling again succeeds and only one TokenDisabled is sent", async () => {
      const token = await saveCard(server);
      assertOk(await server.api("POST", "/api/v1/tokens/disable", { tokenValue: token }));
      assertOk(await server.api("POST", "/api/v1/tokens/disable", { TokenValue: token }));
      assertError(await charge(server, token), 409, "3003", token);
      const other = await server.addMerchant();
      assertError(await server.api("POST", "/api/v1/tokens/disable", { tokenValue: token }, as(other)), 404, "2014");
      const disabledEvents = () =>
        receiver.requests
          .map((request) => JSON.parse(request.body))
          .filter((body) => body.additionalData?.token === token && body.additionalData.eventType === "TokenDisabled");
      await waitForWebhooks(() => disabledEvents().length >= 1);
      // The outbox holds every message ever queued: exactly one TokenDisabled for this token.
      const queued = await server.db
        .selectFrom("webhook_deliveries")
        .select("id")
        .where("event_type", "=", "TokenDisabled")
        .where(sql<boolean>`payload -> 'additionalData' ->> 'token' = ${token}`)
        .execute();
      assert.equal(queued.length, 1, "one TokenDisabled queued");
      const events = disabledEvents();
      assert.equal(events.length, 1, "one TokenDisabled");
      assert.equal(events[0].amount, "0");
      assert.equal(verifyPaymentWebhook(JSON.stringify(events[0]), hmacKey).valid, true);
    });

    it("the plugin's shape is accepted as sent and stored as given; PascalCase names and a lower-case currency too", async () => {
      const token = await saveCard(server);
      const pascal = {
        TerminalIdentifier: server.terminalIdentifier,
        Amount: 5000,
        Currency: "isk",
        Reference: "Order #77 / Jón",
        TokenDetails: { TokenValue: token, RecurringProcessingModel: "UnscheduledCardOnFile" },
        ShopperIp: "2001:db8::1",
        Origin: "https://shop.example",
        Channel: "Web",
        ReturnUrl: "not even a URL: stored as given",
      };
      const response = await server.api("POST", "/api/v1/payment", pascal);
      assertOk(response);
      assert.equal(response.body.resultCode, "Authorised");
      assert.equal(response.body.currency, "ISK");
      const row = await server.db
        .selectFrom("token_payments")
        .selectAll()
        .where("id", "=", response.body.checkoutReference)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        [row.shopper_ip, row.origin, row.channel, row.return_url, row.merchant_reference, row.recurring_processing_model],
        ["2001:db8::1", "https://shop.example", "Web", "not even a URL: stored as given", "Order #77 / Jón", "UnscheduledCardOnFile"],
      );
      const nulls = await charge(server, token, { shopperIp: null, origin: null, channel: null, returnUrl: null });
      assertOk(nulls);
    });

    it("bad charges are the documented 4xx and record nothing", async () => {
      const token = await saveCard(server);
      const before = await server.db
        .selectFrom("token_payments")
        .select(({ fn }) => fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      assertError(await charge(server, token, { amount: 0 }), 400, "2002");
      assertError(await charge(server, token, { amount: 12350 }), 400, "2026");
      assertError(await charge(server, token, { currency: "XYZ" }), 400, "2008");
      assertError(await charge(server, token, { terminalIdentifier: "000000000000" }), 400, "2016");
      assertError(await charge(server, token, { reference: "" }), 400, "000");
      assertError(await charge(server, token, { reference: "line\nbreak" }), 400, "2008");
      assertError(await charge(server, token, { tokenDetails: { tokenValue: token, recurringProcessingModel: "Weekly" } }), 400, "2003");
      assertError(await charge(server, token, { shopperEmail: "a@b.is" }), 400, "1006");
      const after = await server.db
        .selectFrom("token_payments")
        .select(({ fn }) => fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      assert.equal(Number(after.n), Number(before.n));
    });
  });
}

async function waitForWebhooks(done: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error("the webhook did not arrive");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
