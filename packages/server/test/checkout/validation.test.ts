// The checkout form's server-side validation (docs/checkout.md#validation: 422 with messages, nothing recorded) in
// both languages, and its CSRF protection (403, nothing recorded).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FormField } from "../../src/checkout/form.ts";
import { issueFormToken } from "../../src/checkout/form-token.ts";
import { type FieldProblem, MESSAGES } from "../../src/checkout/i18n.ts";
import { errorText } from "../../src/checkout/views/field.tsx";
import { cartDigest } from "../../src/domain/links/cart.ts";
import type { AuthorizeRequest, PaymentProcessor } from "../../src/payments/processor.ts";
import { SandboxProcessor } from "../../src/payments/sandbox.ts";
import type { Lang } from "../../src/web/i18n.ts";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { CARDS, cardFields, createLink, decodeHtml, getPage, hiddenInputs, postForm, textOf } from "../support/shopper.ts";

/** The price of the links createLink(server) makes (48900 = 489 kr.). */
const PRICE = {
  amount: 48900,
  currency: "ISK",
  cart: cartDigest([{ name: "Lopapeysa", quantity: 1, unitPrice: 48900, amountWithoutDiscount: 48900, amount: 48900 }]),
};

class CountingProcessor implements PaymentProcessor {
  readonly name = "counting";
  calls = 0;
  readonly sandbox = new SandboxProcessor();
  authorize(request: AuthorizeRequest) {
    this.calls++;
    return this.sandbox.authorize(request);
  }
  cancel(reference: string) {
    return this.sandbox.cancel(reference);
  }
  reverseAttempt(checkoutReference: string) {
    return this.sandbox.reverseAttempt(checkoutReference);
  }
}

const ALL_FIELDS_REQUIRED = ["Ssn", "FullName", "Address", "PostCode", "City", "Country", "Telephone", "EmailAddress", "Comments"].map(
  (field) => ({ field, requirementType: "Required" }),
);

const GOOD_SHOPPER = {
  Ssn: "010130-2989",
  FullName: "Anna Jónsdóttir",
  Address: "Laugavegur 1",
  PostCode: "101",
  City: "Reykjavík",
  Country: "Ísland",
  Telephone: "+354 555 1234",
  EmailAddress: "anna@example.is",
  Comments: "Takk",
};

/** Each case: what is posted (on top of a valid form) and the one problem it must produce. */
const CASES: Array<{ name: string; fields: Record<string, string>; field: FormField; problem: FieldProblem }> = [
  { name: "no card number", fields: { cardNumber: "" }, field: "cardNumber", problem: "card_number_required" },
  { name: "card number failing Luhn", fields: { cardNumber: "4111 1111 1111 1112" }, field: "cardNumber", problem: "card_number_invalid" },
  { name: "card number of 11 digits", fields: { cardNumber: "42424242426" }, field: "cardNumber", problem: "card_number_invalid" },
  { name: "card number of 20 digits", fields: { cardNumber: "42424242424242424241" }, field: "cardNumber", problem: "card_number_invalid" },
  { name: "card number with letters", fields: { cardNumber: "4111 1111 1111 111a" }, field: "cardNumber", problem: "card_number_invalid" },
  { name: "no expiry", fields: { cardExpiry: "" }, field: "cardExpiry", problem: "card_expiry_required" },
  { name: "expiry month 13", fields: { cardExpiry: "13/30" }, field: "cardExpiry", problem: "card_expiry_invalid" },
  { name: "expiry in the past", fields: { cardExpiry: "01/20" }, field: "cardExpiry", problem: "card_expiry_past" },
  { name: "no CVC", fields: { cardCvc: "" }, field: "cardCvc", problem: "card_cvc_required" },
  { name: "CVC of 2 digits", fields: { cardCvc: "12" }, field: "cardCvc", problem: "card_cvc_invalid" },
  { name: "CVC of 5 digits", fields: { cardCvc: "12345" }, field: "cardCvc", problem: "card_cvc_invalid" },
  { name: "card holder too long", fields: { cardHolder: "A".repeat(101) }, field: "cardHolder", problem: "card_holder_too_long" },
  ...ALL_FIELDS_REQUIRED.map(({ field }) => ({
    name: `required ${field} missing`,
    fields: { [field]: "  " },
    field: field as FormField,
    problem: "required" as FieldProblem,
  })),
  { name: "e-mail without @", fields: { EmailAddress: "anna.example.is" }, field: "EmailAddress", problem: "invalid_email" },
  { name: "kennitala of 9 digits", fields: { Ssn: "010130298" }, field: "Ssn", problem: "invalid_ssn" },
  { name: "telephone of 6 digits", fields: { Telephone: "555123" }, field: "Telephone", problem: "invalid_telephone" },
  { name: "telephone with letters", fields: { Telephone: "555-CALL-NOW" }, field: "Telephone", problem: "invalid_telephone" },
  { name: "full name too long", fields: { FullName: "B".repeat(201) }, field: "FullName", problem: "too_long" },
];

for (const backend of testBackends()) {
  describe(`checkout form validation and CSRF (${backend.name})`, () => {
    let server: TestServer;
    const processor = new CountingProcessor();
    let reference: string;
    let pageHtml: string;

    before(async () => {
      server = await startTestServer({ backend, processor });
      reference = await createLink(server, { shopperInfo: ALL_FIELDS_REQUIRED });
      pageHtml = (await getPage(server.baseUrl, `/pay/${reference}`)).html;
    });
    after(() => server.close());

    const recorded = async () => {
      const link = (await server.api("GET", `/api/v1/paymentlinks/${reference}`)).body.paymentLink;
      return { submissions: link.submissions.length, salesCount: link.salesCount };
    };

    it("covers every validation message", () => {
      const covered = new Set(CASES.map((c) => c.problem));
      assert.deepEqual([...covered].sort(), Object.keys(MESSAGES.en.errors).sort());
    });

    for (const lang of ["is", "en"] as const satisfies readonly Lang[]) {
      for (const testCase of CASES) {
        it(`${lang}: ${testCase.name} → 422 "${testCase.problem}" next to ${testCase.field}`, async () => {
          const callsBefore = processor.calls;
          const before = await recorded();
          const response = await postForm(server.baseUrl, reference, {
            ...hiddenInputs(pageHtml),
            ...GOOD_SHOPPER,
            ...cardFields(CARDS.visa),
            lang,
            ...testCase.fields,
          });
          assert.equal(response.status, 422);
          const message = errorText(MESSAGES[lang], { field: testCase.field, problem: testCase.problem });
          const errorParagraph = new RegExp(`<p class="error" id="${testCase.field}-error">([^<]*)</p>`).exec(response.html);
          assert.ok(errorParagraph, `an error next to ${testCase.field}`);
          assert.equal(decodeHtml(errorParagraph[1]!), message);
          const control = new RegExp(`<(?:input|textarea) id="${testCase.field}"[^>]*>`).exec(response.html)![0];
          assert.match(control, /aria-invalid="true"/);
          assert.match(control, new RegExp(`aria-describedby="[^"]*${testCase.field}-error`));
          // Listed in the summary, linked to the field, exactly one problem.
          assert.equal((response.html.match(/<p class="error"/g) ?? []).length, 1);
          assert.ok(response.html.includes(`<a href="#${testCase.field}">`));
          assert.match(response.html, new RegExp(`<html lang="${lang}">`));
          assert.deepEqual(await recorded(), before, "nothing recorded");
          assert.equal(processor.calls, callsBefore, "no processor call");
        });
      }
    }

    it("the 422 form keeps shopper fields, name, expiry and the card number typed, never the CVC", async () => {
      const response = await postForm(server.baseUrl, reference, {
        ...hiddenInputs(pageHtml),
        ...GOOD_SHOPPER,
        ...cardFields(CARDS.visa),
        cardCvc: "98",
        cardHolder: "Anna J",
      });
      assert.equal(response.status, 422);
      for (const [field, value] of Object.entries(GOOD_SHOPPER)) {
        if (field === "Comments") assert.ok(response.html.includes(`>${value}</textarea>`));
        else assert.match(response.html, new RegExp(`<input id="${field}"[^>]*value="${value.replace(/\+/g, "\\+")}"`), field);
      }
      assert.match(response.html, /<input id="cardHolder"[^>]*value="Anna J"/);
      assert.match(response.html, /<input id="cardExpiry"[^>]*value="08\/\d\d"/);
      // The number comes back in this one answer, which no cache keeps; the CVC never does.
      assert.match(response.html, /<input id="cardNumber"[^>]*value="4111 1111 1111 1111"/);
      assert.equal(response.headers.get("cache-control"), "no-store");
      assert.doesNotMatch(response.html, /<input id="cardCvc"[^>]*value=/);
      // The same (unused) attempt token comes back, and a corrected post pays.
      assert.equal(hiddenInputs(response.html).csrfToken, hiddenInputs(pageHtml).csrfToken);
      const fixed = await postForm(server.baseUrl, reference, {
        ...hiddenInputs(response.html),
        ...GOOD_SHOPPER,
        ...cardFields(CARDS.visa),
      });
      assert.equal(fixed.status, 200);
      // Any other answer that shows the form again (here a declined card) leaves the number out.
      const declinedLink = await createLink(server, { culture: "en" });
      const declined = await postForm(server.baseUrl, declinedLink, {
        ...hiddenInputs((await getPage(server.baseUrl, `/pay/${declinedLink}`)).html),
        ...cardFields(CARDS.refused),
      });
      assert.equal(declined.status, 402);
      assert.doesNotMatch(declined.html, /<input id="cardNumber"[^>]*value=/);
      assert.doesNotMatch(declined.html, /<input id="cardCvc"[^>]*value=/);
      const link = (await server.api("GET", `/api/v1/paymentlinks/${reference}`)).body.paymentLink;
      assert.deepEqual(
        link.submissions[0].answers,
        Object.entries(GOOD_SHOPPER).map(([field, value]) => ({ field, value })),
      );
    });

    describe("CSRF", () => {
      let target: string;
      let html: string;
      before(async () => {
        target = await createLink(server, { culture: "en" });
        html = (await getPage(server.baseUrl, `/pay/${target}`)).html;
      });
      const submissions = async () => (await server.api("GET", `/api/v1/paymentlinks/${target}`)).body.paymentLink.submissions.length;
      const refused = async (fields: Record<string, string>, headers: Record<string, string> = {}) => {
        const callsBefore = processor.calls;
        const before = await submissions();
        const response = await postForm(server.baseUrl, target, { ...cardFields(CARDS.visa), ...fields }, headers);
        assert.equal(response.status, 403);
        assert.ok(textOf(response.html).includes("This form has expired"));
        assert.equal(await submissions(), before);
        assert.equal(processor.calls, callsBefore);
        return response;
      };

      it("refuses a post without the token, and the 403 page carries a fresh one that works", async () => {
        const response = await refused({ lang: "en" });
        const fresh = hiddenInputs(response.html).csrfToken!;
        assert.ok(fresh);
        const retry = await postForm(server.baseUrl, target, { ...hiddenInputs(response.html), ...cardFields(CARDS.visa) });
        assert.equal(retry.status, 200);
      });

      it("refuses a token of another link, a tampered token, a foreign key's token, an expired token", async () => {
        const otherPage = (await getPage(server.baseUrl, `/pay/${reference}`)).html;
        await refused({ csrfToken: hiddenInputs(otherPage).csrfToken! });
        const token = hiddenInputs(html).csrfToken!;
        await refused({ csrfToken: token.slice(0, -2) + (token.endsWith("AA") ? "BB" : "AA") });
        await refused({ csrfToken: issueFormToken(Buffer.alloc(32, 1), target, new Date(), PRICE) });
        const secret = await server.database.db
          .selectFrom("server_secrets")
          .select("value")
          .where("name", "=", "checkout-form-token")
          .executeTakeFirstOrThrow();
        const key = Buffer.from(secret.value, "hex");
        await refused({ csrfToken: issueFormToken(key, target, new Date(Date.now() - 13 * 60 * 60 * 1000), PRICE) });
        // A genuine token for another price: the page comes back with the link's real price (409).
        const otherPrice = await postForm(server.baseUrl, target, {
          ...cardFields(CARDS.visa),
          csrfToken: issueFormToken(key, target, new Date(), { ...PRICE, amount: 100 }),
        });
        assert.equal(otherPrice.status, 409);
        assert.match(textOf(otherPrice.html), /The price has changed/);
        // The same key, fresh: accepted.
        assert.equal(
          (await postForm(server.baseUrl, target, { ...cardFields(CARDS.visa), csrfToken: issueFormToken(key, target, new Date(), PRICE) }))
            .status,
          200,
        );
      });

      it("refuses a cross-site post even with a valid token", async () => {
        const fresh = async () => hiddenInputs((await getPage(server.baseUrl, `/pay/${target}`)).html);
        await refused(await fresh(), { origin: "https://evil.example" });
        await refused(await fresh(), { origin: "null" });
        await refused(await fresh(), { "sec-fetch-site": "cross-site" });
        const sameOrigin = await postForm(
          server.baseUrl,
          target,
          { ...(await fresh()), ...cardFields(CARDS.visa) },
          { origin: server.baseUrl, "sec-fetch-site": "same-origin" },
        );
        assert.equal(sameOrigin.status, 200);
      });

      it("refuses bodies that are not forms with an HTML page", async () => {
        const json = await fetch(`${server.baseUrl}/pay/${target}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ cardNumber: CARDS.visa }),
        });
        assert.equal(json.status, 415);
        assert.match(json.headers.get("content-type")!, /text\/html/);
        const multipart = await fetch(`${server.baseUrl}/pay/${target}`, { method: "POST", body: new FormData() });
        assert.equal(multipart.status, 415);
        assert.match(multipart.headers.get("content-type")!, /text\/html/);
        const huge = await postForm(server.baseUrl, target, { Comments: "x".repeat(100_000) });
        assert.equal(huge.status, 413);
      });
    });
  });
}
