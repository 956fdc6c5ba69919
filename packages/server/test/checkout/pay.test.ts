// POST /pay/{reference} (docs/checkout.md, docs/webhooks.md): payments, declines, card saving, the webhook outbox
// rows written with each result, and what the merchant then reads through the API (docs/api.md#the-payment-link-object).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import type { AuthorizeRequest, PaymentProcessor } from "../../src/payments/processor.ts";
import { SandboxProcessor } from "../../src/payments/sandbox.ts";
import { reconcileStalePayments } from "../../src/services/reconcile-payments.ts";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { addWebhookEndpoint, outboxMessages } from "../support/outbox.ts";
import { CARDS, cardFields, createLink, futureExpiry, getPage, hiddenInputs, pay, postForm, textOf } from "../support/shopper.ts";

const silentLog = { warn() {}, error() {}, info() {} };

const CHECKOUT_REFERENCE = /^[0-9A-Za-z]{20}$/;
const UPPER16 = /^[0-9A-Z]{16}$/;

/** The sandbox, but it can be told to fail (no answer) for chosen card numbers. */
class SwitchableProcessor implements PaymentProcessor {
  readonly name = "switchable";
  readonly sandbox = new SandboxProcessor();
  readonly requests: AuthorizeRequest[] = [];
  failFor = new Set<string>();
  /** Cards the processor approves but whose reply is lost on the way back (outcome unknown to Paylink). */
  loseReplyFor = new Set<string>();
  reverseFails = false;
  async authorize(request: AuthorizeRequest) {
    this.requests.push(request);
    if (this.failFor.has(request.card.number)) throw new Error("connection reset");
    const result = await this.sandbox.authorize(request);
    if (this.loseReplyFor.has(request.card.number)) throw new Error("socket hang up");
    return result;
  }
  cancel(reference: string) {
    return this.sandbox.cancel(reference);
  }
  reverseAttempt(checkoutReference: string) {
    if (this.reverseFails) return Promise.reject(new Error("processor unreachable"));
    return this.sandbox.reverseAttempt(checkoutReference);
  }
}

for (const backend of testBackends()) {
  describe(`checkout payments (${backend.name})`, () => {
    let server: TestServer;
    const processor = new SwitchableProcessor();

    before(async () => {
      server = await startTestServer({ backend, processor });
      await addWebhookEndpoint(server);
    });
    after(() => server.close());

    const readLink = async (reference: string) => {
      const response = await server.api("GET", `/api/v1/paymentlinks/${reference}`);
      assert.equal(response.status, 200);
      return response.body.paymentLink;
    };
    const messagesFor = async (reference: string) =>
      (await outboxMessages(server)).filter((m) => m.payload.merchantReference === reference);

    it("pays, redirects 303 to returnUrl with checkoutReference, and the API shows the sale", async () => {
      const reference = await createLink(server, {
        returnUrl: "https://shop.example/thanks?order=42&sig=a%2Fb%20c&flag#paid",
        description: "Order 42 (internal)",
        exactSalesCount: 1,
        shopperInfo: [
          { field: "EmailAddress", requirementType: "Required" },
          { field: "FullName", requirementType: "Optional" },
        ],
      });
      const response = await pay(server.baseUrl, reference, {
        ...cardFields(CARDS.visa),
        EmailAddress: " anna@example.is ",
        FullName: "Anna Jónsdóttir",
      });
      assert.equal(response.status, 303);
      const location = new URL(response.location!);
      assert.equal(location.origin + location.pathname, "https://shop.example/thanks");
      assert.equal(location.searchParams.get("order"), "42");
      const checkoutReference = location.searchParams.get("checkoutReference")!;
      assert.match(checkoutReference, CHECKOUT_REFERENCE);
      assert.equal(
        response.location,
        `https://shop.example/thanks?order=42&sig=a%2Fb%20c&flag&checkoutReference=${checkoutReference}#paid`,
        "the merchant's query kept byte for byte",
      );

      const link = await readLink(reference);
      assert.equal(link.visitCount, 1);
      assert.equal(link.salesCount, 1);
      assert.equal(link.maxSalesCount, 1);
      assert.equal(link.status, "Used");
      assert.equal(link.submissions.length, 1);
      const submission = link.submissions[0];
      assert.equal(submission.checkoutReference, checkoutReference);
      assert.deepEqual(submission.answers, [
        { field: "EmailAddress", value: "anna@example.is" },
        { field: "FullName", value: "Anna Jónsdóttir" },
      ]);
      assert.equal(submission.completed, true);
      assert.equal(submission.amount, 48900);
      assert.equal(submission.currency, "ISK");
      assert.equal(submission.token, null);

      const [message, ...others] = await messagesFor(reference);
      assert.equal(others.length, 0);
      assert.equal(message!.eventType, "Authorization");
      const payload = message!.payload;
      assert.equal(payload.checkoutReference, checkoutReference);
      assert.match(payload.payfacReference, UPPER16);
      assert.equal(payload.merchantReference, reference);
      assert.equal(payload.amount, "48900");
      assert.equal(payload.currency, "ISK");
      assert.equal(payload.success, "true");
      const [, expiryYear] = futureExpiry().split("/");
      assert.match(payload.reason, new RegExp(`^\\d{6}:1111:08/20${expiryYear}$`));
      assert.deepEqual(payload.additionalData, {
        eventType: "Authorization",
        cardNumber: "411111******1111",
        cardSummary: "1111",
        cardUsage: "Debit",
        cardExpiryDate: `08/20${expiryYear}`,
        paymentMethod: "VI",
        threeDAuthenticated: "false",
        authCode: payload.reason.slice(0, 6),
        paymentLinkIdentifier: reference,
        paymentLinkDescription: "Order 42 (internal)",
      });
      for (const value of Object.values(payload.additionalData)) assert.equal(typeof value, "string");
    });

    it("shows a receipt (200) without returnUrl: checkoutReference, amount, masked card", async () => {
      const reference = await createLink(server);
      const response = await pay(server.baseUrl, reference, cardFields(CARDS.mastercard));
      assert.equal(response.status, 200);
      const text = textOf(response.html);
      const link = await readLink(reference);
      const checkoutReference = link.submissions[0].checkoutReference;
      assert.ok(text.includes("Greiðsla tókst"), text);
      assert.ok(text.includes(checkoutReference));
      assert.ok(text.includes("489 kr."));
      assert.ok(text.includes("Mastercard •••• 4444"), "the brand by its name and the last four digits");
      assert.ok(!text.includes("555555"), "no more of the number than a person needs");
      assert.equal(link.salesCount, 1);
      assert.equal(link.status, "Active", "no cap: still open");
      const [message] = await messagesFor(reference);
      assert.equal(message!.payload.additionalData.cardUsage, "Credit");
      assert.equal(message!.payload.additionalData.paymentMethod, "MC");
    });

    it("tells an Icelandic shopper why in Icelandic, never in the processor's English", async () => {
      const reference = await createLink(server, { culture: "is" });
      for (const [card, shown] of [
        [CARDS.expired, "Ástæða: Kortið er útrunnið."],
        [CARDS.refused, "Ástæða: Útgefandi kortsins hafnaði greiðslunni."],
      ] as const) {
        const response = await pay(server.baseUrl, reference, cardFields(card));
        assert.equal(response.status, 402);
        const text = textOf(response.html);
        assert.ok(text.includes(shown), text);
        assert.doesNotMatch(text, /Expired Card|Refused/);
      }
    });

    for (const [card, reason, shown] of [
      [CARDS.refused, "Refused", "The card issuer refused the payment."],
      [CARDS.expired, "Expired Card", "The card has expired."],
      [CARDS.cvcDeclined, "CVC Declined", "The security code was not accepted."],
    ] as const) {
      it(`declines ${card} with 402 and the reason "${reason}", records completed: false`, async () => {
        const reference = await createLink(server, {
          exactSalesCount: 1,
          culture: "en",
          shopperInfo: [{ field: "EmailAddress", requirementType: "Required" }],
        });
        const response = await pay(server.baseUrl, reference, { ...cardFields(card), EmailAddress: "bjorn@example.is" });
        assert.equal(response.status, 402);
        const text = textOf(response.html);
        assert.ok(text.includes("Payment declined"), text);
        assert.ok(text.includes(`Reason: ${shown}`), text);
        assert.ok(text.includes("You have not been charged"));
        // The form is back, with the shopper's details but never the card number or CVC.
        assert.match(response.html, /<form method="post"/);
        assert.match(response.html, /name="EmailAddress"[^>]*value="bjorn@example.is"/);
        assert.ok(!response.html.includes(card) && !response.html.includes(card.replace(/(\d{4})(?=\d)/g, "$1 ")));
        assert.doesNotMatch(response.html, /name="cardCvc"[^>]*value="737"/);
        assert.match(response.html, /name="cardHolder"[^>]*value="Jón Jónsson"/);

        const link = await readLink(reference);
        assert.equal(link.salesCount, 0);
        assert.equal(link.status, "Active");
        assert.equal(link.submissions.length, 1);
        assert.equal(link.submissions[0].completed, false);
        assert.deepEqual(link.submissions[0].answers, [{ field: "EmailAddress", value: "bjorn@example.is" }]);

        const messages = await messagesFor(reference);
        assert.equal(messages.length, 1);
        assert.equal(messages[0]!.eventType, "Authorization");
        assert.equal(messages[0]!.payload.success, "false");
        assert.equal(messages[0]!.payload.reason, reason);
        assert.equal(messages[0]!.payload.additionalData.authCode, undefined);

        // The decline released the slot: the same shopper can pay with another card at once.
        const retry = await postForm(server.baseUrl, reference, {
          ...hiddenInputs(response.html),
          ...cardFields(CARDS.visa),
          EmailAddress: "bjorn@example.is",
        });
        assert.equal(retry.status, 200);
        const after = await readLink(reference);
        assert.equal(after.salesCount, 1);
        assert.deepEqual(
          after.submissions.map((s: any) => s.completed),
          [false, true],
        );
      });
    }

    it("saves a card on a TokenizeByLink: token on the submission, link Completed, Tokenization event with amount 0", async () => {
      const reference = await createLink(server, { type: "TokenizeByLink", recurringProcessingModel: "Subscription", culture: "en" });
      const page = await getPage(server.baseUrl, `/pay/${reference}`);
      assert.equal(page.status, 200);
      const pageText = textOf(page.html);
      assert.ok(pageText.includes("Save your card"));
      assert.ok(pageText.includes("Nothing is charged now"));
      assert.match(page.html, /<button type="submit" class="pay"[^>]*>Save card<\/button>/);

      const response = await postForm(server.baseUrl, reference, { ...hiddenInputs(page.html), ...cardFields(CARDS.visa) });
      assert.equal(response.status, 200);
      assert.ok(textOf(response.html).includes("Card saved"));
      const request = processor.requests.at(-1)!;
      assert.equal(request.kind, "tokenization");
      assert.equal(request.amount, 0);
      assert.equal(request.saveCard, true);
      assert.equal(request.recurringProcessingModel, "Subscription");

      const link = await readLink(reference);
      assert.equal(link.status, "Completed");
      assert.equal(link.salesCount, 1);
      assert.equal(link.maxSalesCount, 1);
      assert.equal(link.visitCount, 1);
      assert.equal(link.submissions.length, 1);
      assert.equal(link.submissions[0].completed, true);
      assert.equal(link.submissions[0].amount, 0);
      assert.match(link.submissions[0].token, UPPER16);
      assert.deepEqual(link.submissions[0].answers, []);

      const messages = await messagesFor(reference);
      assert.deepEqual(
        messages.map((m) => m.eventType),
        ["Tokenization"],
      );
      const payload = messages[0]!.payload;
      assert.equal(payload.amount, "0");
      assert.equal(payload.success, "true");
      assert.equal(payload.additionalData.eventType, "Tokenization");
      assert.equal(payload.additionalData.token, link.submissions[0].token);
      assert.equal(payload.checkoutReference, link.submissions[0].checkoutReference);

      // Completed: a second visit gets the 410 page, and a post records nothing.
      const again = await getPage(server.baseUrl, `/pay/${reference}`);
      assert.equal(again.status, 410);
      assert.ok(textOf(again.html).includes("This card has already been saved"));
      const late = await postForm(server.baseUrl, reference, { ...hiddenInputs(page.html), ...cardFields(CARDS.visa) });
      assert.equal(late.status, 410);
      assert.equal((await readLink(reference)).submissions.length, 1);
    });

    it("a PayByLink with recurringProcessingModel pays and saves the card: Authorization and Tokenization events", async () => {
      const reference = await createLink(server, { recurringProcessingModel: "CardOnFile" });
      const page = await getPage(server.baseUrl, `/pay/${reference}`);
      assert.ok(textOf(page.html).includes("Kortið verður einnig vistað"));
      const response = await postForm(server.baseUrl, reference, { ...hiddenInputs(page.html), ...cardFields(CARDS.visa) });
      assert.equal(response.status, 200);
      const link = await readLink(reference);
      assert.equal(link.recurringProcessingModel, "CardOnFile");
      assert.equal(link.salesCount, 1);
      const submission = link.submissions[0];
      assert.equal(submission.completed, true);
      assert.equal(submission.amount, 48900);
      assert.match(submission.token, UPPER16);
      assert.equal(processor.requests.at(-1)!.kind, "payment");
      assert.equal(processor.requests.at(-1)!.saveCard, true);

      const messages = await messagesFor(reference);
      const byType = new Map(messages.map((m) => [m.eventType, m.payload]));
      assert.deepEqual([...byType.keys()].sort(), ["Authorization", "Tokenization"]);
      assert.equal(byType.get("Authorization").additionalData.token, undefined);
      assert.equal(byType.get("Tokenization").additionalData.token, submission.token);
      assert.equal(byType.get("Tokenization").amount, "48900");
      for (const payload of byType.values()) {
        assert.equal(payload.checkoutReference, submission.checkoutReference);
        assert.equal(payload.success, "true");
      }
    });

    it("a processor that does not answer: 502, submission failed, slot released, no webhook", async () => {
      const reference = await createLink(server, { exactSalesCount: 1 });
      processor.failFor.add(CARDS.other);
      try {
        const response = await pay(server.baseUrl, reference, cardFields(CARDS.other));
        assert.equal(response.status, 502);
        assert.ok(textOf(response.html).includes("Ekki tókst að ljúka greiðslunni"));
      } finally {
        processor.failFor.delete(CARDS.other);
      }
      const link = await readLink(reference);
      assert.equal(link.salesCount, 0);
      assert.equal(link.submissions.length, 1);
      assert.equal(link.submissions[0].completed, false);
      assert.deepEqual(await messagesFor(reference), []);
      const row = await server.database.db
        .selectFrom("payment_links")
        .select(["reserved_count"])
        .where("reference", "=", reference)
        .executeTakeFirstOrThrow();
      assert.equal(row.reserved_count, 0);
      // The slot is free again.
      assert.equal((await pay(server.baseUrl, reference, cardFields(CARDS.visa))).status, 200);
    });

    it("an approval whose reply was lost is reversed before the shopper is told 'not charged'; a retry leaves exactly one live charge", async () => {
      const reference = await createLink(server, { exactSalesCount: 1, culture: "en" });
      processor.loseReplyFor.add(CARDS.other);
      let lost: Awaited<ReturnType<typeof pay>>;
      try {
        lost = await pay(server.baseUrl, reference, cardFields(CARDS.other));
      } finally {
        processor.loseReplyFor.delete(CARDS.other);
      }
      assert.equal(lost.status, 502);
      assert.match(textOf(lost.html), /You have not been charged/);
      const first = (await readLink(reference)).submissions[0];
      assert.equal(processor.sandbox.reversed.has(first.checkoutReference), true, "reversed by our reference");
      const lostCharge = processor.sandbox.approvals.get(first.checkoutReference)!;
      assert.ok(processor.sandbox.cancelled.has(lostCharge), "the approval nobody recorded was voided");

      assert.equal((await pay(server.baseUrl, reference, cardFields(CARDS.visa))).status, 200);
      const link = await readLink(reference);
      assert.equal(link.salesCount, 1);
      const live = link.submissions
        .map((s: any) => processor.sandbox.approvals.get(s.checkoutReference))
        .filter((p: string | undefined) => p && !processor.sandbox.cancelled.has(p));
      assert.equal(live.length, 1, "one charge stands, and it is the recorded sale");
    });

    it("when the reversal cannot be confirmed either: 202 'do not pay again', the slot stays held, and the reconciler finishes it", async () => {
      const reference = await createLink(server, { exactSalesCount: 1, culture: "en" });
      processor.loseReplyFor.add(CARDS.other);
      processor.reverseFails = true;
      let unconfirmed: Awaited<ReturnType<typeof pay>>;
      try {
        unconfirmed = await pay(server.baseUrl, reference, cardFields(CARDS.other));
      } finally {
        processor.loseReplyFor.delete(CARDS.other);
        processor.reverseFails = false;
      }
      assert.equal(unconfirmed.status, 202);
      assert.match(textOf(unconfirmed.html), /Your payment could not be confirmed/);
      assert.match(textOf(unconfirmed.html), /do not pay again right away/);
      const db = server.database.db;
      const [pending] = await db.selectFrom("submissions").select(["id", "state"]).where("link_reference", "=", reference).execute();
      assert.equal(pending!.state, "pending");
      const reserved = async () =>
        (await db.selectFrom("payment_links").select("reserved_count").where("reference", "=", reference).executeTakeFirstOrThrow())
          .reserved_count;
      assert.equal(await reserved(), 1, "the slot stays held: the charge may have gone through");
      assert.equal((await pay(server.baseUrl, reference, cardFields(CARDS.visa))).status, 410, "the cap cannot be exceeded meanwhile");

      // Later: the sweep reverses it (the processor answers again) and releases the slot.
      await sql`UPDATE submissions SET created_at = now() - interval '16 minutes' WHERE id = ${pending!.id}`.execute(db);
      const released = await reconcileStalePayments({ db, processor, log: silentLog }, reference);
      assert.equal(released, 1);
      assert.ok(processor.sandbox.cancelled.has(processor.sandbox.approvals.get(pending!.id)!), "the unknown approval was voided");
      const after = await db.selectFrom("submissions").select("state").where("id", "=", pending!.id).executeTakeFirstOrThrow();
      assert.equal(after.state, "abandoned");
      assert.equal(await reserved(), 0);
      assert.equal((await pay(server.baseUrl, reference, cardFields(CARDS.visa))).status, 200);
    });

    it("a form posted twice (double click, reload) makes one submission and one processor call", async () => {
      const reference = await createLink(server);
      const page = await getPage(server.baseUrl, `/pay/${reference}`);
      const fields = { ...hiddenInputs(page.html), ...cardFields(CARDS.visa) };
      const callsBefore = processor.requests.length;
      const [first, second] = await Promise.all([postForm(server.baseUrl, reference, fields), postForm(server.baseUrl, reference, fields)]);
      const third = await postForm(server.baseUrl, reference, fields);
      for (const response of [first, second, third]) assert.equal(response.status, 200);
      const link = await readLink(reference);
      assert.equal(link.submissions.length, 1);
      assert.equal(link.salesCount, 1);
      assert.equal(processor.requests.length - callsBefore, 1);
      for (const response of [first, second, third]) assert.ok(response.html.includes(link.submissions[0].checkoutReference));
    });

    it("Prefilled fields use the stored value whatever is posted; Hidden fields are neither shown nor accepted", async () => {
      const reference = await createLink(server, {
        shopperInfo: [
          { field: "FullName", requirementType: "Prefilled", prefilledValue: "Guðrún Ósk" },
          { field: "Telephone", requirementType: "Hidden" },
          { field: "City", requirementType: "Optional" },
        ],
      });
      const page = await getPage(server.baseUrl, `/pay/${reference}`);
      assert.match(page.html, /<input id="FullName" name="FullName" type="text" value="Guðrún Ósk"[^>]*readonly/);
      assert.ok(!page.html.includes('name="Telephone"'));
      const response = await postForm(server.baseUrl, reference, {
        ...hiddenInputs(page.html),
        ...cardFields(),
        FullName: "Someone Else",
        Telephone: "5551234",
        City: "",
      });
      assert.equal(response.status, 200);
      const link = await readLink(reference);
      assert.deepEqual(link.submissions[0].answers, [{ field: "FullName", value: "Guðrún Ósk" }]);
    });

    it("a NUL character (which PostgreSQL cannot store) in an answer is dropped, not a 500", async () => {
      const reference = await createLink(server, { shopperInfo: [{ field: "Comments", requirementType: "Optional" }] });
      const response = await pay(server.baseUrl, reference, { ...cardFields(), Comments: "Takk\u0000 fyrir\u0001 😀" });
      assert.equal(response.status, 200);
      assert.deepEqual((await readLink(reference)).submissions[0].answers, [{ field: "Comments", value: "Takk fyrir 😀" }]);
    });

    it("GET of the link shows visits, sales, submissions with answers and tokens, and status (docs/api.md)", async () => {
      const reference = await createLink(server, {
        exactSalesCount: 2,
        recurringProcessingModel: "UnscheduledCardOnFile",
        shopperInfo: [{ field: "EmailAddress", requirementType: "Required" }],
      });
      await getPage(server.baseUrl, `/pay/${reference}`);
      await pay(server.baseUrl, reference, { ...cardFields(CARDS.refused), EmailAddress: "a@example.is" });
      await pay(server.baseUrl, reference, { ...cardFields(CARDS.visa), EmailAddress: "b@example.is" });
      let link = await readLink(reference);
      assert.equal(link.visitCount, 3);
      assert.equal(link.salesCount, 1);
      assert.equal(link.status, "Active");
      await pay(server.baseUrl, reference, { ...cardFields(CARDS.mastercard), EmailAddress: "c@example.is" });
      link = await readLink(reference);
      assert.equal(link.visitCount, 4);
      assert.equal(link.salesCount, 2);
      assert.equal(link.maxSalesCount, 2);
      assert.equal(link.status, "Used");
      assert.deepEqual(
        link.submissions.map((s: any) => ({
          answers: s.answers,
          completed: s.completed,
          amount: s.amount,
          currency: s.currency,
          hasToken: typeof s.token === "string",
        })),
        [
          {
            answers: [{ field: "EmailAddress", value: "a@example.is" }],
            completed: false,
            amount: 48900,
            currency: "ISK",
            hasToken: false,
          },
          { answers: [{ field: "EmailAddress", value: "b@example.is" }], completed: true, amount: 48900, currency: "ISK", hasToken: true },
          { answers: [{ field: "EmailAddress", value: "c@example.is" }], completed: true, amount: 48900, currency: "ISK", hasToken: true },
        ],
      );
      assert.equal(link.submissions[0].token, null);
      for (const submission of link.submissions) {
        for (const key of ["answers", "completed", "amount", "currency", "token"]) assert.ok(key in submission, key);
      }
      // The list shows the same counters.
      const list = await server.api("GET", `/api/v1/paymentlinks?search=${reference}`);
      assert.equal(list.body.data[0].visitCount, 4);
      assert.equal(list.body.data[0].salesCount, 2);
      assert.equal(list.body.data[0].status, "Used");
    });
  });
}
