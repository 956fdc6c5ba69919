// A link's checkout through Adyen's Hosted Checkout, end to end on every backend: Paylink's page
// has no card fields and sends the shopper to Adyen's page; the sale is decided by Adyen's session
// result (asked with the sessionResult of the shopper's return) or Adyen's HMAC-signed
// notification, never by the return address itself. Adyen is a local fake
// (test/support/adyen-fake.ts) that checks every request against Adyen's published schemas and
// signs its notifications as Adyen does.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { reconcileHostedAttempts } from "../../src/services/hosted-payment.ts";
import { processorDirectory } from "../../src/services/processor-directory.ts";
import { ADYEN_TEST_CARDS, type FakeAdyen } from "../support/adyen-fake.ts";
import { type ShopOnAdyen, startShopOnAdyen } from "../support/adyen-shop.ts";
import { testBackends } from "../support/databases.ts";
import type { TestServer } from "../support/harness.ts";
import { testKeyring } from "../support/keyring.ts";
import { assertNothingLeaked } from "../support/processor-shop.ts";
import { createLink, getPage, hiddenInputs, postForm, textOf } from "../support/shopper.ts";
import { waitUntil } from "../support/wait.ts";

for (const backend of testBackends()) {
  describe(`a link paid on Adyen's Hosted Checkout (${backend.name})`, () => {
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

    const merchantWebhooks = (reference: string) => context.merchantWebhooks(reference);
    const salesOf = async (reference: string) => {
      const { body } = await shop.api("GET", `/api/v1/paymentlinks/${reference}`);
      return (body.paymentLink?.salesCount ?? body.salesCount) as number;
    };
    const attemptOf = (reference: string) =>
      shop.db.selectFrom("submissions").selectAll().where("link_reference", "=", reference).executeTakeFirstOrThrow();
    /** Opens the shop's page and posts its form (no card): the 303 to Adyen's page. */
    const startPayment = async (reference: string) => {
      const page = await getPage(shop.baseUrl, `/pay/${reference}`);
      assert.equal(page.status, 200);
      const fields = hiddenInputs(page.html);
      const posted = await postForm(shop.baseUrl, reference, fields);
      return { page, fields, posted };
    };
    const sessionIdOf = (location: string) => new URL(location).pathname.split("/").pop()!;
    /** The shopper types a card on Adyen's page. */
    const payOnAdyen = (location: string, card: string) =>
      fetch(location, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ cardNumber: card, expiryDate: "03/30", securityCode: "737" }).toString(),
      });
    /** The body of the create call that made a session. */
    const createdWith = (sessionId: string) => {
      const reference = adyen.sessions.get(sessionId)!.reference;
      const created = adyen.requests.find(
        (request) => request.route === "POST /v71/sessions" && request.status === 201 && JSON.parse(request.body).reference === reference,
      );
      return { body: JSON.parse(created!.body), idempotencyKey: created!.idempotencyKey };
    };
    const acknowledged = (eventCode: string, merchantReference: string) =>
      waitUntil(
        async () =>
          adyen.notifications.find(
            (sent) => sent.eventCode === eventCode && sent.merchantReference === merchantReference && sent.status === 200,
          ),
        10_000,
        `Adyen's ${eventCode} notification acknowledged`,
      );

    it("sends the shopper to Adyen, records the sale Adyen's session result reports, and sends one webhook", async () => {
      const reference = await createLink(shop);
      const { page, fields, posted } = await startPayment(reference);
      assert.doesNotMatch(page.html, /name="cardNumber"|name="cardCvc"/, "no card fields on a real processor's page");
      assert.match(page.headers.get("content-security-policy") ?? "", new RegExp(`form-action 'self' ${adyen.origin}`));
      assert.equal(posted.status, 303);
      assert.equal(new URL(posted.location!).origin, adyen.origin);
      const sessionId = sessionIdOf(posted.location!);
      const attempt = await attemptOf(reference);
      assert.equal(attempt.processor_reference, sessionId);

      // What Paylink asked Adyen for: ISK 48900 is 489 kr., which Adyen counts in hundredths too.
      const created = createdWith(sessionId);
      assert.equal(created.idempotencyKey, attempt.id, "keyed by the attempt");
      assert.equal(created.body.mode, "hosted");
      assert.equal(created.body.merchantAccount, adyen.merchantAccount);
      assert.deepEqual(created.body.amount, { value: 48900, currency: "ISK" });
      assert.equal(created.body.reference, attempt.id);
      assert.deepEqual(created.body.lineItems, [{ id: "1", description: "Lopapeysa", quantity: 1, amountIncludingTax: 48900 }]);
      assert.match(created.body.shopperLocale, /^(is-IS|en-US)$/);
      assert.equal(created.body.storePaymentMethodMode, undefined, "a plain sale saves no card");
      assert.ok(Math.abs(Date.parse(created.body.expiresAt) - (Date.now() + 15 * 60_000)) < 60_000, "Adyen's page closes with Paylink's");
      const returnUrl = created.body.returnUrl as string;
      assert.equal(new URL(returnUrl).pathname, `/pay/${reference}/return/${attempt.id}`);

      // The same form posted again goes to the same page: one attempt, one session.
      const again = await postForm(shop.baseUrl, reference, fields);
      assert.equal(again.location, posted.location);
      assert.equal(
        adyen.requests.filter((request) => request.route === "POST /v71/sessions" && request.idempotencyKey === attempt.id).length,
        1,
      );

      // A forged return (the shopper's own query string) sells nothing: Adyen refuses its sessionResult.
      const forged = await getPage(shop.baseUrl, `${new URL(returnUrl).pathname}?sessionId=${sessionId}&sessionResult=completed`);
      assert.equal(forged.status, 202, "still processing");
      assert.equal(forged.headers.get("refresh"), "3");
      assert.equal(await salesOf(reference), 0);

      // The shopper pays on Adyen's page and comes back with sessionId and sessionResult.
      const paid = await payOnAdyen(posted.location!, ADYEN_TEST_CARDS.approved);
      assert.equal(paid.status, 303);
      const back = new URL(paid.headers.get("location")!);
      assert.equal(`${back.origin}${back.pathname}`, returnUrl);
      assert.equal(back.searchParams.get("sessionId"), sessionId);
      const receipt = await getPage(shop.baseUrl, back.pathname + back.search);
      assert.equal(receipt.status, 200, receipt.html);
      assert.match(textOf(receipt.html), /Thank you|Takk/);
      assert.equal(await salesOf(reference), 1);
      const sold = await attemptOf(reference);
      assert.equal(sold.payfac_reference, adyen.sessions.get(sessionId)!.payments[0]!.pspReference);

      // Adyen's AUTHORISATION notification comes too, answered [accepted]; the merchant gets one Authorization.
      const notified = await acknowledged("AUTHORISATION", attempt.id);
      assert.equal(notified.answer, "[accepted]");
      await waitUntil(async () => merchantWebhooks(reference).length >= 1, 10_000, "the merchant's webhook");
      await new Promise((resolve) => setTimeout(resolve, 500));
      const webhooks = merchantWebhooks(reference);
      assert.equal(webhooks.length, 1, JSON.stringify(webhooks));
      assert.equal(webhooks[0].additionalData.eventType, "Authorization");
      assert.equal(webhooks[0].success, "true");
      assert.equal(webhooks[0].amount, "48900");
      assert.equal(await salesOf(reference), 1);
    });

    it("a tokenize link makes a zero-value authorisation that saves the card, and records the token Adyen's notification reports", async () => {
      const reference = await createLink(shop, { type: "TokenizeByLink", amount: 0 });
      const { posted } = await startPayment(reference);
      assert.equal(posted.status, 303);
      const sessionId = sessionIdOf(posted.location!);
      const attempt = await attemptOf(reference);
      const created = createdWith(sessionId).body;
      assert.deepEqual(created.amount, { value: 0, currency: "ISK" });
      assert.equal(created.storePaymentMethodMode, "enabled");
      assert.equal(created.recurringProcessingModel, "CardOnFile");
      assert.equal(created.shopperInteraction, "Ecommerce");
      assert.equal(created.shopperReference, `paylink-${attempt.id}`);
      assert.equal(created.lineItems, undefined);
      const paid = await payOnAdyen(posted.location!, ADYEN_TEST_CARDS.approved);
      assert.equal(paid.status, 303);
      const back = new URL(paid.headers.get("location")!);
      // The session result names no token; the page waits for the notification that does.
      await waitUntil(
        async () => {
          const page = await getPage(shop.baseUrl, back.pathname + back.search);
          return page.status === 200 && page;
        },
        10_000,
        "the receipt",
      );
      const saved = await attemptOf(reference);
      assert.equal(saved.state, "approved");
      // Adyen's stored card and the attempt whose shopperReference it is stored under (payments/adyen-api.ts adyenToken).
      assert.equal(saved.token, `${adyen.sessions.get(sessionId)!.storedPaymentMethodId}.${attempt.id}`);
      assert.ok(saved.token!.length <= 64, "within the API's tokenValue");
      await waitUntil(async () => merchantWebhooks(reference).length >= 1, 10_000, "the merchant's webhook");
      const [tokenization] = merchantWebhooks(reference);
      assert.equal(tokenization.additionalData.eventType, "Tokenization");
      assert.equal(tokenization.additionalData.token, saved.token);
    });

    it("a notification with a bad HMAC changes nothing (401); the same one three times gives one sale and one webhook", async () => {
      const reference = await createLink(shop);
      const { posted } = await startPayment(reference);
      const sessionId = sessionIdOf(posted.location!);
      adyen.autoNotifications = false;
      try {
        // Paid, but the shopper never comes back: the notification alone decides.
        assert.equal((await payOnAdyen(posted.location!, ADYEN_TEST_CARDS.approved)).status, 303);
        const item = adyen.authorisationItem(sessionId);
        const forged = await adyen.sendNotification([item], { hmacKey: "AB".repeat(32) });
        assert.equal(forged.status, 401);
        assert.equal(await salesOf(reference), 0);
        assert.equal((await attemptOf(reference)).state, "pending");
        for (let i = 0; i < 3; i++) {
          const sent = await adyen.sendNotification([item]);
          assert.deepEqual([sent.status, sent.answer], [200, "[accepted]"]);
        }
        assert.equal(await salesOf(reference), 1);
        const sold = await attemptOf(reference);
        assert.equal(sold.state, "approved");
        assert.equal(sold.payfac_reference, item.pspReference);
        assert.equal(sold.card_last4, "1111");
        assert.equal(sold.card_brand, "VI");
      } finally {
        adyen.autoNotifications = true;
      }
      await waitUntil(async () => merchantWebhooks(reference).length >= 1, 10_000, "the merchant's webhook");
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(merchantWebhooks(reference).length, 1);
    });

    it("a refused card on Adyen's page ends nothing: the merchant hears of it once, and another card pays", async () => {
      const reference = await createLink(shop);
      const { posted } = await startPayment(reference);
      const refused = await payOnAdyen(posted.location!, ADYEN_TEST_CARDS.refused);
      assert.equal(refused.status, 200, "the page stays open");
      assert.match(await refused.text(), /Refused/);
      const attempt = await attemptOf(reference);
      const decline = await waitUntil(
        async () =>
          adyen.notifications.find((sent) => sent.merchantReference === attempt.id && sent.success === "false" && sent.status === 200),
        10_000,
        "the refusal notified",
      );
      // Adyen sends it again (as if it had not heard [accepted]): still one decline for the merchant.
      const sessionId = sessionIdOf(posted.location!);
      assert.equal(
        (await adyen.sendNotification([adyen.authorisationItem(sessionId, { success: false, pspReference: decline.pspReference })])).status,
        200,
      );
      assert.equal((await attemptOf(reference)).state, "pending");
      assert.equal(await salesOf(reference), 0);
      const paid = await payOnAdyen(posted.location!, ADYEN_TEST_CARDS.approved);
      assert.equal(paid.status, 303);
      const back = new URL(paid.headers.get("location")!);
      assert.equal((await getPage(shop.baseUrl, back.pathname + back.search)).status, 200);
      assert.equal(await salesOf(reference), 1);
      await waitUntil(async () => merchantWebhooks(reference).length >= 2, 10_000, "the merchant's webhooks");
      await new Promise((resolve) => setTimeout(resolve, 300));
      const told = merchantWebhooks(reference).map((body) => [body.success, body.payfacReference]);
      assert.deepEqual(
        told.sort(),
        [
          ["false", decline.pspReference],
          ["true", adyen.sessions.get(sessionId)!.payments[0]!.pspReference],
        ].sort(),
      );
    });

    it("a completed session result without its pspReference waits for the AUTHORISATION notification", async () => {
      const reference = await createLink(shop);
      const { posted } = await startPayment(reference);
      const sessionId = sessionIdOf(posted.location!);
      adyen.autoNotifications = false;
      adyen.resultListsPayments = false;
      try {
        const paid = await payOnAdyen(posted.location!, ADYEN_TEST_CARDS.approved);
        const back = new URL(paid.headers.get("location")!);
        const waiting = await getPage(shop.baseUrl, back.pathname + back.search);
        assert.equal(waiting.status, 202, "processing");
        assert.equal(await salesOf(reference), 0);
        assert.equal((await adyen.sendNotification([adyen.authorisationItem(sessionId)])).status, 200);
        const receipt = await getPage(shop.baseUrl, back.pathname + back.search);
        assert.equal(receipt.status, 200);
        assert.equal(await salesOf(reference), 1);
      } finally {
        adyen.autoNotifications = true;
        adyen.resultListsPayments = true;
      }
    });

    it("an approval after the link was disabled is reversed at Adyen once", async () => {
      const reference = await createLink(shop);
      const { posted } = await startPayment(reference);
      const sessionId = sessionIdOf(posted.location!);
      const attempt = await attemptOf(reference);
      const disabled = await shop.api("POST", "/api/v1/paymentlinks/disable", { paymentLinkReference: reference });
      assert.ok(disabled.status < 300, JSON.stringify(disabled.body));
      const paid = await payOnAdyen(posted.location!, ADYEN_TEST_CARDS.approved);
      assert.equal(paid.status, 303);
      const back = new URL(paid.headers.get("location")!);
      const page = await getPage(shop.baseUrl, back.pathname + back.search);
      assert.equal(page.status, 200);
      assert.match(textOf(page.html), /not completed|ekki lokið/);
      // Adyen's AUTHORISATION about it arrives too and finds it settled; the reversal's result is acknowledged.
      await acknowledged("AUTHORISATION", attempt.id);
      // Adyen echoes the reversal's own reference; the notification names no refund of Paylink's and is acknowledged.
      await acknowledged("CANCEL_OR_REFUND", `${attempt.id}-void`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const psp = adyen.sessions.get(sessionId)!.payments[0]!.pspReference;
      const reversals = adyen.requests.filter((request) => request.route === "POST /v71/payments/{paymentPspReference}/reversals");
      assert.equal(reversals.length, 1);
      assert.equal(reversals[0]!.status, 201);
      assert.equal(reversals[0]!.path, `/v71/payments/${psp}/reversals`);
      assert.equal(reversals[0]!.idempotencyKey, `${attempt.id}-void`);
      assert.deepEqual(JSON.parse(reversals[0]!.body), { merchantAccount: adyen.merchantAccount, reference: `${attempt.id}-void` });
      assert.equal(await salesOf(reference), 0);
      assert.equal(merchantWebhooks(reference).filter((body) => body.success === "true").length, 0, "the merchant is told of no sale");
    });

    it("a lost answer to the create call leaves nothing held, and the shopper can try again", async () => {
      const reference = await createLink(shop, { maxSalesCount: 1 });
      adyen.loseNextAnswer(/^\/v71\/sessions$/);
      const { posted } = await startPayment(reference);
      assert.equal(posted.status, 502);
      const attempt = await attemptOf(reference);
      assert.equal(attempt.state, "abandoned");
      const link = await shop.db
        .selectFrom("payment_links")
        .select(["reserved_count", "sales_count"])
        .where("reference", "=", reference)
        .executeTakeFirstOrThrow();
      assert.deepEqual([link.reserved_count, link.sales_count], [0, 0]);
      // Adyen made its session, but nobody has its address: it stays unpaid.
      assert.ok([...adyen.sessions.values()].some((session) => session.reference === attempt.id && session.status === "active"));
      const retry = await startPayment(reference);
      assert.equal(retry.posted.status, 303);
    });

    it("the sweep does not ask Adyen without a sessionResult: the page keeps its slot until its time is over", async () => {
      const reference = await createLink(shop, { maxSalesCount: 1 });
      const { posted } = await startPayment(reference);
      const sessionId = sessionIdOf(posted.location!);
      const sweep = () =>
        reconcileHostedAttempts({
          db: shop.db,
          now: () => new Date(),
          log: silentLog,
          processors: processorDirectory({ db: shop.db, keyring: testKeyring() }),
        });
      await shop.db
        .updateTable("submissions")
        .set({ created_at: new Date(Date.now() - 3 * 60_000) })
        .where("link_reference", "=", reference)
        .execute();
      await sweep();
      assert.equal((await attemptOf(reference)).state, "pending", "a page still open keeps its slot");
      assert.equal(
        adyen.requests.filter((request) => request.path === `/v71/sessions/${sessionId}`).length,
        0,
        "nothing to ask Adyen with",
      );
      await shop.db
        .updateTable("submissions")
        .set({ hosted_until: new Date(Date.now() - 30 * 60_000) })
        .where("link_reference", "=", reference)
        .execute();
      await sweep();
      assert.equal((await attemptOf(reference)).state, "abandoned");
      const link = await shop.db
        .selectFrom("payment_links")
        .select("reserved_count")
        .where("reference", "=", reference)
        .executeTakeFirstOrThrow();
      assert.equal(link.reserved_count, 0);
    });

    it("every request Paylink sent, Adyen's published schema accepts (and the fake answered by Adyen's)", () => {
      assert.ok(adyen.requests.length > 0);
      for (const request of adyen.requests) {
        assert.deepEqual(request.errors, [], `${request.route}: ${request.errors.join("; ")}`);
        assert.deepEqual(request.answerErrors, [], `the fake's answer to ${request.route}: ${request.answerErrors.join("; ")}`);
      }
      for (const sent of adyen.notifications.filter((notification) => notification.status === 200)) assert.equal(sent.answer, "[accepted]");
    });

    it("no card number, API key or HMAC key is in the logs, the database or the admin API", () =>
      assertNothingLeaked(context, [ADYEN_TEST_CARDS.approved, ADYEN_TEST_CARDS.refused], [adyen.apiKey, adyen.hmacKey]));
  });
}

const silentLog = { info() {}, warn() {}, error() {} };
