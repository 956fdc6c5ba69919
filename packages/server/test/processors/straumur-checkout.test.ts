// A link's checkout through the live gateway (Straumur), end to end on every backend: Paylink's
// page has no card fields and sends the shopper to the gateway's own page; the sale is decided by
// the gateway's status call or its signed webhook, never by the return address. The gateway is a
// second Paylink with the sandbox (test/support/gateway.ts), which validates every request the
// adapter sends by the gateway's shapes.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { computePaymentSignature } from "paylink-sdk";
import { reconcileHostedAttempts } from "../../src/services/hosted-payment.ts";
import { processorDirectory } from "../../src/services/processor-directory.ts";
import { testBackends } from "../support/databases.ts";
import { type LocalGateway, type ShopOnGateway, startShopOnGateway } from "../support/gateway.ts";
import { startSecondInstance, type TestServer } from "../support/harness.ts";
import { testKeyring } from "../support/keyring.ts";
import { assertNothingLeaked } from "../support/processor-shop.ts";
import { paySession } from "../support/sessions.ts";
import { CARDS, cardFields, createLink, getPage, hiddenInputs, postForm, textOf } from "../support/shopper.ts";
import { waitUntil } from "../support/wait.ts";

for (const backend of testBackends()) {
  describe(`a link paid on the live gateway's page (${backend.name})`, () => {
    let context: ShopOnGateway;
    let gateway: LocalGateway;
    let shop: TestServer;
    let gatewayHmacKey: string;

    before(async () => {
      context = await startShopOnGateway(backend);
      ({ gateway, shop, gatewayHmacKey } = context);
    });
    after(async () => {
      await context?.close();
    });

    const merchantWebhooks = (reference: string) => context.merchantWebhooks(reference);
    const linkCounts = async (reference: string) => {
      const { body } = await shop.api("GET", `/api/v1/paymentlinks/${reference}`);
      return { sales: body.paymentLink?.salesCount ?? body.salesCount, status: body.paymentLink?.status ?? body.status };
    };
    /** Opens the shop's page and posts its form (no card): the 303 to the gateway's page. */
    const startPayment = async (reference: string) => {
      const page = await getPage(shop.baseUrl, `/pay/${reference}`);
      assert.equal(page.status, 200);
      const fields = hiddenInputs(page.html);
      const posted = await postForm(shop.baseUrl, reference, fields);
      return { page, fields, posted };
    };

    it("sends the shopper to the gateway, records the sale it reports, and sends one webhook", async () => {
      const reference = await createLink(shop);
      const { page, fields, posted } = await startPayment(reference);
      assert.doesNotMatch(page.html, /name="cardNumber"|name="cardCvc"/, "no card fields on a real processor's page");
      assert.match(textOf(page.html), /Continue to pay|Halda áfram og greiða/);
      assert.match(page.headers.get("content-security-policy") ?? "", new RegExp(`form-action 'self' ${new URL(gateway.baseUrl).origin}`));

      assert.equal(posted.status, 303);
      const gatewayPage = new URL(posted.location!);
      assert.equal(gatewayPage.origin, gateway.origin);
      const gatewayReference = gatewayPage.pathname.split("/").pop()!;
      // The same form posted again goes to the same page: one attempt, one gateway session.
      const again = await postForm(shop.baseUrl, reference, fields);
      assert.equal(again.location, posted.location);
      assert.equal(
        gateway.sent.filter((request) => request.path.startsWith("/api/v1/hostedcheckout") && request.method === "POST").length,
        1,
      );

      // A forged return (the shopper's own query string) sells nothing.
      const created = JSON.parse(gateway.sent.find((request) => request.method === "POST")!.body);
      const returnUrl = created.returnUrl as string;
      const forged = await getPage(
        new URL(returnUrl).origin,
        `${new URL(returnUrl).pathname}?checkoutReference=${gatewayReference}&status=Completed&success=true`,
      );
      assert.equal(forged.status, 202, "still processing");
      assert.equal(forged.headers.get("refresh"), "3");
      assert.equal((await linkCounts(reference)).sales, 0);

      // The shopper pays on the gateway's page, and comes back.
      const paid = await paySession(gateway.origin, gatewayReference, CARDS.visa);
      assert.equal(paid.status, 303);
      assert.ok(paid.location!.startsWith(returnUrl), paid.location!);
      const back = await getPage(shop.baseUrl, new URL(paid.location!).pathname + new URL(paid.location!).search);
      assert.equal(back.status, 200, back.html);
      assert.match(textOf(back.html), /Thank you|Takk/);
      assert.equal((await linkCounts(reference)).sales, 1);

      // The gateway's own webhook comes too; the merchant still gets one Authorization.
      await waitUntil(async () => merchantWebhooks(reference).length >= 1, 10_000, "the merchant's webhook");
      await waitUntil(
        async () =>
          gateway.server.db
            .selectFrom("webhook_deliveries")
            .select("id")
            .where("delivered_at", "is not", null)
            .execute()
            .then((rows) => rows.length >= 1),
        10_000,
        "the gateway's webhook delivered",
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      const webhooks = merchantWebhooks(reference);
      assert.equal(webhooks.length, 1, JSON.stringify(webhooks));
      assert.equal(webhooks[0].additionalData.eventType, "Authorization");
      assert.equal(webhooks[0].success, "true");
      assert.equal(webhooks[0].amount, "48900");
      assert.equal((await linkCounts(reference)).sales, 1);
      // Every request the adapter sent, the gateway accepted by its own shapes.
      for (const request of gateway.sent.filter((sent) => sent.path.startsWith("/api/")))
        assert.ok(request.status < 300, `${request.method} ${request.path} → ${request.status}: ${request.body}`);
    });

    it("a tokenize link saves the card at the gateway and records the token its webhook reports", async () => {
      const reference = await createLink(shop, { type: "TokenizeByLink", amount: 0 });
      const { posted } = await startPayment(reference);
      assert.equal(posted.status, 303);
      const created = JSON.parse(gateway.sent.filter((request) => request.method === "POST").pop()!.body);
      assert.equal(created.amount, 0);
      assert.equal(created.recurringProcessingModel, "CardOnFile");
      const gatewayReference = new URL(posted.location!).pathname.split("/").pop()!;
      const paid = await paySession(gateway.origin, gatewayReference, CARDS.visa);
      assert.equal(paid.status, 303);
      // The token comes with the gateway's Tokenization webhook; until then the return page waits.
      await waitUntil(
        async () => {
          const back = await getPage(shop.baseUrl, new URL(paid.location!).pathname);
          return back.status === 200 && back;
        },
        10_000,
        "the receipt",
      );
      const saved = await shop.db
        .selectFrom("submissions")
        .select(["state", "token"])
        .where("link_reference", "=", reference)
        .executeTakeFirstOrThrow();
      assert.equal(saved.state, "approved");
      assert.match(saved.token ?? "", /^[0-9A-Z]{16}$/);
      await waitUntil(async () => merchantWebhooks(reference).length >= 1, 10_000, "the merchant's webhook");
      const [tokenization] = merchantWebhooks(reference);
      assert.equal(tokenization.additionalData.eventType, "Tokenization");
      assert.equal(tokenization.additionalData.token, saved.token);
    });

    it("a session is paid on the gateway's page and returns to the shop with its own reference", async () => {
      const created = await shop.api("POST", "/api/v1/hostedcheckout", {
        amount: 48900,
        currency: "ISK",
        returnUrl: "http://shop.example/order/1042?key=abc",
        reference: "1042",
        terminalIdentifier: shop.terminalIdentifier,
      });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const sessionReference = created.body.checkoutReference as string;
      const page = await getPage(shop.baseUrl, `/checkout/${sessionReference}`);
      assert.equal(page.status, 200);
      assert.doesNotMatch(page.html, /name="cardNumber"/);
      const posted = await fetch(`${shop.baseUrl}/checkout/${sessionReference}`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(hiddenInputs(page.html)).toString(),
      });
      assert.equal(posted.status, 303);
      const gatewayReference = new URL(posted.headers.get("location")!).pathname.split("/").pop()!;
      const paid = await paySession(gateway.origin, gatewayReference, CARDS.visa);
      assert.equal(paid.status, 303);
      assert.ok(new URL(paid.location!).pathname.startsWith(`/checkout/${sessionReference}/return/`));
      const back = await fetch(`${shop.baseUrl}${new URL(paid.location!).pathname}`, { redirect: "manual" });
      assert.equal(back.status, 303);
      assert.equal(back.headers.get("location"), `http://shop.example/order/1042?key=abc&checkoutReference=${sessionReference}`);
      const status = await shop.api("GET", `/api/v1/hostedcheckout/status/${sessionReference}`);
      assert.equal(status.body.status, "Completed");
      assert.match(status.body.payfacReference, /^[0-9A-Z]{16}$/);
    });

    it("refuses card fields on a real processor's form (400), charging and keeping nothing", async () => {
      const reference = await createLink(shop);
      const page = await getPage(shop.baseUrl, `/pay/${reference}`);
      const before = gateway.sent.length;
      const posted = await postForm(shop.baseUrl, reference, { ...hiddenInputs(page.html), ...cardFields(CARDS.visa) });
      assert.equal(posted.status, 400);
      assert.equal(gateway.sent.length, before);
      const rows = await shop.db.selectFrom("submissions").select("id").where("link_reference", "=", reference).execute();
      assert.equal(rows.length, 0);
    });

    it("a notification with a bad signature changes nothing (401); the same one three times and out of order gives one sale", async () => {
      const reference = await createLink(shop);
      const { posted } = await startPayment(reference);
      const gatewayReference = new URL(posted.location!).pathname.split("/").pop()!;
      const attempt = await shop.db
        .selectFrom("submissions")
        .select("id")
        .where("link_reference", "=", reference)
        .executeTakeFirstOrThrow();
      const message = (eventType: string, success: boolean) => ({
        checkoutReference: gatewayReference,
        // Each decline at the gateway has its own reference, as the approval has.
        payfacReference: success ? "ABCDEFGHIJKLMNOP" : "DECLINED00000001",
        merchantReference: attempt.id,
        amount: "48900",
        currency: "ISK",
        reason: success ? "123456:1111:12/2030" : "Refused",
        success: String(success),
        additionalData: {
          eventType,
          cardNumber: "411111******1111",
          cardSummary: "1111",
          cardUsage: "Debit",
          authCode: "123456",
          paymentMethod: "VI",
        },
      });
      const send = (body: object, key = gatewayHmacKey) =>
        fetch(`${shop.baseUrl}/processors/${shop.terminalIdentifier}/webhook`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ ...body, hmacSignature: computePaymentSignature(body as never, key) }),
        });

      const forged = await send(message("Authorization", true), "00".repeat(32));
      assert.equal(forged.status, 401);
      assert.equal((await linkCounts(reference)).sales, 0);

      // A decline on the gateway's page ends nothing: the shopper may try another card there. The
      // merchant hears of it once, however often the gateway reports it.
      for (let i = 0; i < 2; i++) assert.equal((await send(message("Authorization", false))).status, 200);
      assert.equal((await linkCounts(reference)).sales, 0);
      const approval = message("Authorization", true);
      for (let i = 0; i < 3; i++) assert.equal((await send(approval)).status, 200);
      assert.equal((await linkCounts(reference)).sales, 1);
      const submission = await shop.db.selectFrom("submissions").selectAll().where("id", "=", attempt.id).executeTakeFirstOrThrow();
      assert.equal(submission.state, "approved");
      assert.equal(submission.card_masked, "411111******1111");
      assert.equal(submission.payfac_reference, "ABCDEFGHIJKLMNOP");
      await waitUntil(async () => merchantWebhooks(reference).length >= 2, 10_000, "the merchant's webhooks");
      await new Promise((resolve) => setTimeout(resolve, 300));
      const told = merchantWebhooks(reference);
      assert.deepEqual(told.map((body) => [body.additionalData.eventType, body.success, body.payfacReference]).sort(), [
        ["Authorization", "false", "DECLINED00000001"],
        ["Authorization", "true", "ABCDEFGHIJKLMNOP"],
      ]);
      const decline = told.find((body) => body.success === "false");
      assert.equal(decline.reason, "Refused");
      assert.equal(decline.checkoutReference, attempt.id);
      assert.equal(decline.additionalData.cardSummary, "1111");
    });

    it("an approval after the link was disabled is reversed at the gateway once", async () => {
      const reference = await createLink(shop);
      const { posted } = await startPayment(reference);
      const gatewayReference = new URL(posted.location!).pathname.split("/").pop()!;
      const disabled = await shop.api("POST", "/api/v1/paymentlinks/disable", { paymentLinkReference: reference });
      assert.ok(disabled.status < 300, JSON.stringify(disabled.body));

      const paid = await paySession(gateway.origin, gatewayReference, CARDS.visa);
      assert.equal(paid.status, 303);
      const back = await getPage(shop.baseUrl, new URL(paid.location!).pathname);
      assert.equal(back.status, 200);
      assert.match(textOf(back.html), /not completed|ekki lokið/);
      // The gateway's webhook about it arrives too, and finds it settled: still one reversal.
      await waitUntil(
        async () => gateway.sent.filter((request) => request.path.startsWith("/api/v1/modification/reverse")).length >= 1,
        10_000,
        "the reversal",
      );
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const reversals = gateway.sent.filter((request) => request.path.startsWith("/api/v1/modification/reverse"));
      assert.equal(reversals.length, 1);
      assert.ok(reversals[0]!.status < 300);
      assert.equal((await linkCounts(reference)).sales, 0);
      const merchantSide = merchantWebhooks(reference).filter((body) => body.success === "true");
      assert.equal(merchantSide.length, 0, "the merchant is told of no sale");
    });

    it("a lost answer to the create call leaves no charge and frees the slot", async () => {
      const reference = await createLink(shop, { maxSalesCount: 1 });
      gateway.loseNextAnswer(/^\/api\/v1\/hostedcheckout\/?$/);
      const { posted } = await startPayment(reference);
      assert.equal(posted.status, 502);
      const attempt = await shop.db
        .selectFrom("submissions")
        .select(["id", "state"])
        .where("link_reference", "=", reference)
        .executeTakeFirstOrThrow();
      assert.equal(attempt.state, "abandoned");
      const link = await shop.db
        .selectFrom("payment_links")
        .select(["reserved_count", "sales_count"])
        .where("reference", "=", reference)
        .executeTakeFirstOrThrow();
      assert.deepEqual([link.reserved_count, link.sales_count], [0, 0]);
      // The gateway made its page, but nobody has its address: it stays unpaid.
      const created = gateway.sent.filter((request) => request.method === "POST" && /hostedcheckout/.test(request.path)).pop()!;
      assert.equal(JSON.parse(created.body).reference, attempt.id);
      // The shopper can try again at once: the one place is free.
      const retry = await startPayment(reference);
      assert.equal(retry.posted.status, 303);
    });

    it("the sweep asks the gateway about a payment whose shopper never came back, and frees a page that closed unpaid", async () => {
      const sweep = () =>
        reconcileHostedAttempts({
          db: shop.db,
          now: () => new Date(),
          log: silentLog,
          processors: processorDirectory({ db: shop.db, keyring: testKeyring() }),
        });
      const paidReference = await createLink(shop);
      const paidStart = await startPayment(paidReference);
      const paid = await paySession(gateway.origin, new URL(paidStart.posted.location!).pathname.split("/").pop()!, CARDS.visa);
      assert.equal(paid.status, 303);
      const leftReference = await createLink(shop, { maxSalesCount: 1 });
      await startPayment(leftReference);
      // Neither shopper comes back, and the gateway's webhooks are not waited for: three minutes pass.
      await shop.db
        .updateTable("submissions")
        .set({ created_at: new Date(Date.now() - 3 * 60_000) })
        .where("link_reference", "in", [paidReference, leftReference])
        .execute();
      await sweep();
      assert.equal((await linkCounts(paidReference)).sales, 1, "the late outcome was asked for");
      const open = await shop.db
        .selectFrom("submissions")
        .select("state")
        .where("link_reference", "=", leftReference)
        .executeTakeFirstOrThrow();
      assert.equal(open.state, "pending", "a page still open keeps its slot");
      // Its page closed long ago: the slot is released.
      await shop.db
        .updateTable("submissions")
        .set({ hosted_until: new Date(Date.now() - 30 * 60_000) })
        .where("link_reference", "=", leftReference)
        .execute();
      await sweep();
      const closed = await shop.db
        .selectFrom("submissions")
        .select("state")
        .where("link_reference", "=", leftReference)
        .executeTakeFirstOrThrow();
      assert.equal(closed.state, "abandoned");
      const link = await shop.db
        .selectFrom("payment_links")
        .select("reserved_count")
        .where("reference", "=", leftReference)
        .executeTakeFirstOrThrow();
      assert.equal(link.reserved_count, 0);
    });

    it("20 shoppers at once on two instances at exactSalesCount 3: three reach the gateway's page, three sales", {
      skip: backend.name !== "postgres" && "a second instance needs PostgreSQL",
    }, async () => {
      const second = await startSecondInstance(shop, { allowPrivateTargets: true, allowProcessorBaseUrls: true });
      try {
        const reference = await createLink(shop, { exactSalesCount: 3 });
        const instances = [shop, second];
        // Every shopper has the page open before anyone pays, as when a link is shared at once.
        const pages = await Promise.all(Array.from({ length: 20 }, (_, i) => getPage(instances[i % 2]!.baseUrl, `/pay/${reference}`)));
        const posts = await Promise.all(pages.map((page, i) => postForm(instances[i % 2]!.baseUrl, reference, hiddenInputs(page.html))));
        const statuses = posts.map((posted) => posted.status);
        const toGateway = posts.filter((posted) => posted.status === 303);
        assert.equal(toGateway.length, 3, `the cap is reserved before the redirect: ${statuses.join(",")}`);
        assert.ok(
          posts.every((posted) => posted.status === 303 || (posted.status >= 400 && posted.status < 500)),
          statuses.join(","),
        );
        for (const posted of toGateway) assert.equal(new URL(posted.location!).origin, gateway.origin);
        assert.equal(new Set(toGateway.map((posted) => posted.location)).size, 3, "three pages at the gateway, one per shopper");

        for (const posted of toGateway) {
          const paid = await paySession(gateway.origin, new URL(posted.location!).pathname.split("/").pop()!, CARDS.visa);
          assert.equal(paid.status, 303);
        }
        await waitUntil(async () => (await linkCounts(reference)).sales === 3, 20_000, "three sales");
        assert.equal((await linkCounts(reference)).status, "Used");
        await waitUntil(
          async () => merchantWebhooks(reference).filter((body) => body.additionalData.eventType === "Authorization").length >= 3,
          20_000,
          "the merchant's Authorization webhooks",
        );
        await new Promise((resolve) => setTimeout(resolve, 500));
        assert.equal(merchantWebhooks(reference).filter((body) => body.additionalData.eventType === "Authorization").length, 3);
        const { reserved_count } = await shop.db
          .selectFrom("payment_links")
          .select("reserved_count")
          .where("reference", "=", reference)
          .executeTakeFirstOrThrow();
        assert.equal(reserved_count, 0, "no slot stays held");
      } finally {
        await second.close();
      }
    });

    // The refused card form above sent a real-looking card number and CVC.
    it("no card number, CVC or processor secret is in the logs, the database or an error body", () =>
      assertNothingLeaked(context, [CARDS.visa], [gateway.server.apiKey, gatewayHmacKey]));
  });
}

const silentLog = { info() {}, warn() {}, error() {} };
