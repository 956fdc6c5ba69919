// A link's checkout through Stripe Checkout, end to end on every backend: Paylink's page has no
// card fields and sends the shopper to Stripe's page; the sale is decided by the Checkout
// Session (Stripe's status call) or Stripe's signed webhook event, never by the return address.
// Stripe is a local fake (test/support/stripe-fake.ts) that checks every request against Stripe's
// published request schemas and signs its events as Stripe does.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { testBackends } from "../support/databases.ts";
import type { TestServer } from "../support/harness.ts";
import { assertNothingLeaked } from "../support/processor-shop.ts";
import { createLink, getPage, hiddenInputs, postForm, textOf } from "../support/shopper.ts";
import { type FakeStripe, STRIPE_TEST_CARDS } from "../support/stripe-fake.ts";
import { payOnStripe, type ShopOnStripe, startShopOnStripe } from "../support/stripe-shop.ts";
import { waitUntil } from "../support/wait.ts";

for (const backend of testBackends()) {
  describe(`a link paid on Stripe Checkout (${backend.name})`, () => {
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

    const merchantWebhooks = (reference: string) => context.merchantWebhooks(reference);
    const salesOf = async (reference: string) => {
      const { body } = await shop.api("GET", `/api/v1/paymentlinks/${reference}`);
      return (body.paymentLink?.salesCount ?? body.salesCount) as number;
    };
    const attemptOf = (reference: string) =>
      shop.db.selectFrom("submissions").selectAll().where("link_reference", "=", reference).executeTakeFirstOrThrow();
    /** Opens the shop's page and posts its form (no card): the 303 to Stripe's page. */
    const startPayment = async (reference: string) => {
      const page = await getPage(shop.baseUrl, `/pay/${reference}`);
      assert.equal(page.status, 200);
      const posted = await postForm(shop.baseUrl, reference, hiddenInputs(page.html));
      return { page, posted };
    };
    const sessionIdOf = (location: string) => new URL(location).pathname.split("/").pop()!;
    const createdWith = (sessionId: string) => {
      const created = stripe.requests.find(
        (request) =>
          request.route === "POST /v1/checkout/sessions" &&
          request.status === 200 &&
          stripe.sessions.get(sessionId)?.client_reference_id === new URLSearchParams(request.body).get("client_reference_id"),
      );
      return new URLSearchParams(created!.body);
    };

    it("sends the shopper to Stripe, records the sale Stripe reports, and sends one webhook", async () => {
      const reference = await createLink(shop);
      const { page, posted } = await startPayment(reference);
      assert.doesNotMatch(page.html, /name="cardNumber"|name="cardCvc"/, "no card fields on a real processor's page");
      assert.match(page.headers.get("content-security-policy") ?? "", new RegExp(`form-action 'self' ${stripe.origin}`));
      assert.equal(posted.status, 303);
      assert.equal(new URL(posted.location!).origin, stripe.origin);
      const sessionId = sessionIdOf(posted.location!);
      const attempt = await attemptOf(reference);

      // What Paylink asked Stripe for: ISK 48900 is 489 kr., which Stripe counts in hundredths too.
      const created = createdWith(sessionId);
      assert.equal(created.get("mode"), "payment");
      assert.equal(created.get("line_items[0][price_data][currency]"), "isk");
      assert.equal(created.get("line_items[0][price_data][unit_amount]"), "48900");
      assert.equal(created.get("line_items[0][quantity]"), "1");
      assert.equal(created.get("client_reference_id"), attempt.id);
      assert.equal(created.get("metadata[checkoutReference]"), attempt.id);
      assert.equal(created.get("payment_intent_data[metadata][checkoutReference]"), attempt.id);
      assert.equal(created.get("payment_intent_data[capture_method]"), null);
      assert.ok(Number(created.get("expires_at")) >= Date.now() / 1000 + 30 * 60, "Stripe's minimum of 30 minutes");
      const creating = stripe.requests.find(
        (request) => request.route === "POST /v1/checkout/sessions" && request.idempotencyKey === attempt.id,
      );
      assert.ok(creating, "keyed by the attempt");

      // A forged return (the shopper's own query string) sells nothing.
      const returnUrl = created.get("success_url")!;
      const forged = await getPage(
        shop.baseUrl,
        `${new URL(returnUrl).pathname}?session_id=${sessionId}&status=complete&payment_status=paid`,
      );
      assert.equal(forged.status, 202, "still processing");
      assert.equal(await salesOf(reference), 0);

      // A declined card leaves Stripe's page open; the approved one sends the shopper back.
      assert.equal((await payOnStripe(posted.location!, STRIPE_TEST_CARDS.declined)).status, 402);
      const paid = await payOnStripe(posted.location!, STRIPE_TEST_CARDS.approved);
      assert.equal(paid.status, 303);
      assert.equal(paid.headers.get("location"), returnUrl);
      const back = await getPage(shop.baseUrl, new URL(returnUrl).pathname);
      assert.equal(back.status, 200, back.html);
      assert.match(textOf(back.html), /Thank you|Takk/);
      assert.equal(await salesOf(reference), 1);
      const sold = await attemptOf(reference);
      assert.equal(sold.payfac_reference, stripe.sessions.get(sessionId).payment_intent);
      assert.match(sold.payfac_reference ?? "", /^pi_/);

      // Stripe's event comes too; the merchant still gets one Authorization.
      await waitUntil(
        async () => stripe.events.some((event) => event.type === "checkout.session.completed" && event.status === 200),
        10_000,
        "Stripe's event acknowledged",
      );
      await waitUntil(async () => merchantWebhooks(reference).length >= 1, 10_000, "the merchant's webhook");
      await new Promise((resolve) => setTimeout(resolve, 500));
      const webhooks = merchantWebhooks(reference);
      assert.equal(webhooks.length, 1, JSON.stringify(webhooks));
      assert.equal(webhooks[0].additionalData.eventType, "Authorization");
      assert.equal(webhooks[0].success, "true");
      assert.equal(webhooks[0].amount, "48900");
      assert.equal(await salesOf(reference), 1);
    });

    it("a tokenize link saves the card in setup mode and records the PaymentMethod as the token", async () => {
      const reference = await createLink(shop, { type: "TokenizeByLink", amount: 0 });
      const { posted } = await startPayment(reference);
      assert.equal(posted.status, 303);
      const sessionId = sessionIdOf(posted.location!);
      const created = createdWith(sessionId);
      assert.equal(created.get("mode"), "setup");
      assert.equal(created.get("currency"), "isk");
      assert.equal(created.get("customer_creation"), "always");
      assert.equal(created.get("line_items[0][quantity]"), null);
      const paid = await payOnStripe(posted.location!, STRIPE_TEST_CARDS.approved);
      assert.equal(paid.status, 303);
      const back = await getPage(shop.baseUrl, new URL(paid.headers.get("location")!).pathname);
      assert.equal(back.status, 200, back.html);
      const saved = await attemptOf(reference);
      assert.equal(saved.state, "approved");
      const setupIntent = stripe.sessions.get(sessionId).setup_intent as string;
      assert.match(saved.token ?? "", /^pm_/);
      assert.equal(saved.payfac_reference, setupIntent);
      await waitUntil(async () => merchantWebhooks(reference).length >= 1, 10_000, "the merchant's webhook");
      const [tokenization] = merchantWebhooks(reference);
      assert.equal(tokenization.additionalData.eventType, "Tokenization");
      assert.equal(tokenization.additionalData.token, saved.token);
    });

    it("an event with a bad signature or an old timestamp changes nothing (401); the same event three times gives one sale", async () => {
      const reference = await createLink(shop);
      const { posted } = await startPayment(reference);
      const sessionId = sessionIdOf(posted.location!);
      stripe.autoEvents = false;
      try {
        assert.equal((await payOnStripe(posted.location!, STRIPE_TEST_CARDS.approved)).status, 303);
        assert.equal(await stripe.sendEvent("checkout.session.completed", sessionId, { secret: "whsec_not_this_endpoints" }), 401);
        assert.equal(
          await stripe.sendEvent("checkout.session.completed", sessionId, { timestamp: Math.floor(Date.now() / 1000) - 6 * 60 }),
          401,
        );
        assert.equal(await salesOf(reference), 0);
        assert.equal((await attemptOf(reference)).state, "pending");
        for (let i = 0; i < 3; i++)
          assert.equal(await stripe.sendEvent("checkout.session.completed", sessionId, { eventId: "evt_same_event" }), 200);
      } finally {
        stripe.autoEvents = true;
      }
      assert.equal(await salesOf(reference), 1);
      const sold = await attemptOf(reference);
      assert.equal(sold.state, "approved");
      assert.equal(sold.payfac_reference, stripe.sessions.get(sessionId).payment_intent);
      await waitUntil(async () => merchantWebhooks(reference).length >= 1, 10_000, "the merchant's webhook");
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(merchantWebhooks(reference).length, 1);
    });

    it("an approval after the link was disabled is refunded at Stripe once", async () => {
      const reference = await createLink(shop);
      const { posted } = await startPayment(reference);
      const sessionId = sessionIdOf(posted.location!);
      const disabled = await shop.api("POST", "/api/v1/paymentlinks/disable", { paymentLinkReference: reference });
      assert.ok(disabled.status < 300, JSON.stringify(disabled.body));
      const paid = await payOnStripe(posted.location!, STRIPE_TEST_CARDS.approved);
      assert.equal(paid.status, 303);
      const back = await getPage(shop.baseUrl, new URL(paid.headers.get("location")!).pathname);
      assert.equal(back.status, 200);
      assert.match(textOf(back.html), /not completed|ekki lokið/);
      // Stripe's event about it arrives too, and finds it settled: still one refund.
      await waitUntil(async () => stripe.events.some((event) => event.type === "checkout.session.completed"), 10_000, "Stripe's event");
      await new Promise((resolve) => setTimeout(resolve, 500));
      const intent = stripe.sessions.get(sessionId).payment_intent as string;
      const refunds = stripe.requests.filter((request) => request.route === "POST /v1/refunds");
      assert.equal(refunds.length, 1);
      assert.equal(refunds[0]!.status, 200);
      assert.equal(new URLSearchParams(refunds[0]!.body).get("payment_intent"), intent);
      assert.equal(refunds[0]!.idempotencyKey, `${(await attemptOf(reference)).id}-void`);
      assert.equal(await salesOf(reference), 0);
      assert.equal(merchantWebhooks(reference).filter((body) => body.success === "true").length, 0, "the merchant is told of no sale");
    });

    it("a lost answer to the create call leaves nothing held, and the shopper can try again", async () => {
      const reference = await createLink(shop, { maxSalesCount: 1 });
      stripe.loseNextAnswer(/^\/v1\/checkout\/sessions$/);
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
      // Stripe made its session, but nobody has its address: it stays unpaid.
      assert.ok([...stripe.sessions.values()].some((session) => session.client_reference_id === attempt.id && session.status === "open"));
      const retry = await startPayment(reference);
      assert.equal(retry.posted.status, 303);
    });

    it("every request Paylink sent, Stripe's published schema accepts", () => {
      assert.ok(stripe.requests.length > 0);
      for (const request of stripe.requests) assert.deepEqual(request.errors, [], `${request.route}: ${request.errors.join("; ")}`);
    });

    it("no card number, secret key or webhook secret is in the logs, the database or the admin API", () =>
      assertNothingLeaked(context, [STRIPE_TEST_CARDS.approved, STRIPE_TEST_CARDS.declined], [stripe.secretKey, stripe.webhookSecret]));
  });
}
