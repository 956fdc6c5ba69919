// The Stripe adapter's pure parts and its page-closing rule: the webhook signature against a
// vector built from the official Node library's test inputs (Stripe publishes no fixed vector),
// Paylink's amounts in Stripe's minor units, Stripe's form encoding as the fake decodes and checks
// it, and a session closed at Stripe once Paylink's own page time is over.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { after, before, describe, it } from "node:test";
import type { HostedPaymentRequest } from "../../src/payments/hosted.ts";
import { formEncode, StripeAmountError, StripeProcessor, toStripeAmount, verifyStripeSignature } from "../../src/payments/stripe.ts";
import { decodeStripeForm, type FakeStripe, REQUEST_SCHEMAS, schemaErrors, startFakeStripe } from "../support/stripe-fake.ts";

// The inputs of stripe/stripe-node's generated-header tests (test/Webhook.spec.ts): the payload is
// JSON.stringify({ id: "evt_test_webhook", object: "event" }, null, 2), the secret "whsec_test_secret".
const PAYLOAD = JSON.stringify({ id: "evt_test_webhook", object: "event" }, null, 2);
const SECRET = "whsec_test_secret";
const TIMESTAMP = 1_700_000_000;
const AT = new Date(TIMESTAMP * 1000);

/** Stripe's documented scheme, computed here independently of the adapter. */
const independent = (payload: string, secret: string, timestamp: number) =>
  createHmac("sha256", Buffer.from(secret, "utf8"))
    .update(Buffer.from(`${timestamp}.${payload}`, "utf8"))
    .digest("hex");

describe("Stripe's webhook signature", () => {
  it("verifies a header built as stripe-node's generateTestHeaderString builds it (t=…,v1=…)", () => {
    const header = `t=${TIMESTAMP},v1=${independent(PAYLOAD, SECRET, TIMESTAMP)}`;
    assert.equal(verifyStripeSignature(PAYLOAD, header, SECRET, AT), true);
  });

  it("takes any v1 that matches, ignores other schemes, and refuses when none matches", () => {
    const good = independent(PAYLOAD, SECRET, TIMESTAMP);
    const other = independent(PAYLOAD, "whsec_rolled_away", TIMESTAMP);
    assert.equal(verifyStripeSignature(PAYLOAD, `t=${TIMESTAMP},v1=${other},v1=${good},v0=${"0".repeat(64)}`, SECRET, AT), true);
    assert.equal(verifyStripeSignature(PAYLOAD, `t=${TIMESTAMP},v1=${other}`, SECRET, AT), false);
    assert.equal(verifyStripeSignature(PAYLOAD, `t=${TIMESTAMP},v0=${good}`, SECRET, AT), false, "only v1 is Stripe's live scheme");
  });

  it("refuses a changed body, a changed timestamp, and the secret without its whsec_ prefix", () => {
    const good = independent(PAYLOAD, SECRET, TIMESTAMP);
    assert.equal(verifyStripeSignature(`${PAYLOAD} `, `t=${TIMESTAMP},v1=${good}`, SECRET, AT), false);
    assert.equal(verifyStripeSignature(PAYLOAD, `t=${TIMESTAMP + 1},v1=${good}`, SECRET, AT), false);
    const withoutPrefix = independent(PAYLOAD, "test_secret", TIMESTAMP);
    assert.equal(
      verifyStripeSignature(PAYLOAD, `t=${TIMESTAMP},v1=${withoutPrefix}`, SECRET, AT),
      false,
      "the whole whsec_… string is the key",
    );
  });

  it("has a five-minute tolerance either side of now", () => {
    const header = `t=${TIMESTAMP},v1=${independent(PAYLOAD, SECRET, TIMESTAMP)}`;
    assert.equal(verifyStripeSignature(PAYLOAD, header, SECRET, new Date((TIMESTAMP + 300) * 1000)), true);
    assert.equal(verifyStripeSignature(PAYLOAD, header, SECRET, new Date((TIMESTAMP + 301) * 1000)), false);
    assert.equal(verifyStripeSignature(PAYLOAD, header, SECRET, new Date((TIMESTAMP - 301) * 1000)), false);
  });

  it("refuses malformed headers", () => {
    for (const header of ["", "t=,v1=", `v1=${independent(PAYLOAD, SECRET, TIMESTAMP)}`, `t=${TIMESTAMP}`, `t=${TIMESTAMP},v1=zz`]) {
      assert.equal(verifyStripeSignature(PAYLOAD, header, SECRET, AT), false, header);
    }
  });
});

describe("Paylink's amounts in Stripe's minor units", () => {
  it("ISK: Paylink's hundredths are Stripe's (two decimals in its API), whole krónur only", () => {
    assert.equal(toStripeAmount(48900, "ISK"), 48900, "489 kr.");
    assert.equal(toStripeAmount(100, "ISK"), 100);
    assert.throws(() => toStripeAmount(48950, "ISK"), StripeAmountError, "never rounded to whole krónur");
  });

  it("two-decimal currencies pass unchanged; zero-decimal ones too (Paylink uses ISO's exponent)", () => {
    assert.equal(toStripeAmount(1099, "EUR"), 1099);
    assert.equal(toStripeAmount(1099, "usd"), 1099);
    assert.equal(toStripeAmount(500, "JPY"), 500);
  });

  it("converts where Paylink's exponent and Stripe's differ, refusing a fraction Stripe cannot take", () => {
    // MGA has two decimals in ISO 4217, none at Stripe.
    assert.equal(toStripeAmount(150000, "MGA"), 1500);
    assert.throws(() => toStripeAmount(150050, "MGA"), StripeAmountError);
  });

  it("three-decimal currencies need a last digit of 0", () => {
    assert.equal(toStripeAmount(5120, "KWD"), 5120);
    assert.throws(() => toStripeAmount(5124, "KWD"), StripeAmountError);
  });

  it("refuses what is not an amount and more than Stripe's eight digits", () => {
    assert.throws(() => toStripeAmount(-100, "EUR"), StripeAmountError);
    assert.throws(() => toStripeAmount(10.5, "EUR"), StripeAmountError);
    assert.equal(toStripeAmount(99_999_999, "EUR"), 99_999_999);
    assert.throws(() => toStripeAmount(100_000_000, "EUR"), StripeAmountError);
  });
});

describe("Stripe's form encoding and the fake's schema check", () => {
  const schema = REQUEST_SCHEMAS["POST /v1/checkout/sessions"]!;

  it("encodes nested objects and lists as bracketed names, and the fake decodes them back", () => {
    const body = formEncode({
      mode: "payment",
      line_items: [{ price_data: { currency: "isk", unit_amount: 48900, product_data: { name: "Lopapeysa" } }, quantity: 1 }],
      metadata: { checkoutReference: "abc" },
      skipped: undefined,
    });
    assert.equal(
      decodeURIComponent(body),
      "mode=payment&line_items[0][price_data][currency]=isk&line_items[0][price_data][unit_amount]=48900&line_items[0][price_data][product_data][name]=Lopapeysa&line_items[0][quantity]=1&metadata[checkoutReference]=abc",
    );
    const decoded = decodeStripeForm(body);
    assert.deepEqual(schemaErrors(schema, decoded), []);
  });

  it("refuses unknown parameters, wrong types and values outside an enum", () => {
    const errorsOf = (params: Record<string, unknown>) => schemaErrors(schema, decodeStripeForm(formEncode(params as never)));
    assert.match(errorsOf({ card_number: "4242424242424242" }).join(), /card_number: unknown parameter/);
    assert.match(errorsOf({ expires_at: "soon" }).join(), /expires_at: must be an integer/);
    assert.match(errorsOf({ mode: "charge" }).join(), /mode: not one of/);
    assert.match(errorsOf({ locale: "is" }).join(), /locale: not one of/, "Stripe Checkout has no Icelandic");
    assert.match(errorsOf({ line_items: [{ price_data: { currency: "ISK", unit_amount: 1 } }] }).join(), /\[currency\]: not a lower-case/);
    assert.match(errorsOf({ payment_intent_data: { capture_method: "later" } }).join(), /\[capture_method\]: not one of/);
  });
});

describe("a Stripe session past Paylink's page time", () => {
  let stripe: FakeStripe;
  before(async () => {
    stripe = await startFakeStripe();
  });
  after(async () => {
    await stripe?.close();
  });

  it("asks Stripe for 30 minutes, and closes the session at Stripe once Paylink's 15 are over", async () => {
    let now = new Date();
    const processor = new StripeProcessor(
      { type: "stripe", secretKey: stripe.secretKey, webhookSecret: stripe.webhookSecret, baseUrl: stripe.baseUrl },
      { now: () => now },
    );
    const request: HostedPaymentRequest = {
      checkoutReference: "attempt-closing-1",
      kind: "payment",
      amount: 48900,
      currency: "ISK",
      saveCard: false,
      recurringProcessingModel: null,
      returnUrl: "http://127.0.0.1/pay/x/return/attempt-closing-1",
      cancelUrl: "http://127.0.0.1/pay/x",
      expiresAt: new Date(now.getTime() + 15 * 60_000),
      culture: "is",
      capture: null,
      items: [],
    };
    const started = await processor.startHostedPayment(request);
    const attempt = { checkoutReference: request.checkoutReference, processorReference: started.processorReference };
    assert.ok(stripe.sessions.get(started.processorReference).expires_at >= Math.floor(now.getTime() / 1000) + 30 * 60);
    assert.deepEqual(await processor.readOutcome(attempt), { kind: "open" });
    now = new Date(now.getTime() + 16 * 60_000);
    assert.deepEqual(await processor.readOutcome(attempt), { kind: "expired" });
    assert.equal(stripe.sessions.get(started.processorReference).status, "expired");
    assert.equal(stripe.requests.filter((sent) => sent.route === "POST /v1/checkout/sessions/{session}/expire").length, 1);
    for (const sent of stripe.requests) assert.deepEqual(sent.errors, [], sent.route);
  });
});
