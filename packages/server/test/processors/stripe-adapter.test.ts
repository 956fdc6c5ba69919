// The Stripe adapter's pure parts and its page-closing rule: the webhook signature against a
// vector built from the official Node library's test inputs (Stripe publishes no fixed vector),
// Paylink's amounts in Stripe's minor units, Stripe's form encoding as the fake decodes and checks
// it, and a session closed at Stripe once Paylink's own page time is over.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { after, before, describe, it } from "node:test";
import type { HostedPaymentRequest } from "../../src/payments/hosted.ts";
import { StripeProcessor } from "../../src/payments/stripe.ts";
import { formEncode, fromStripeAmount, StripeAmountError, toStripeAmount, verifyStripeSignature } from "../../src/payments/stripe-api.ts";
import {
  decodeStripeForm,
  EXAMPLE_OBJECTS,
  type FakeStripe,
  REQUEST_SCHEMAS,
  schemaErrors,
  startFakeStripe,
} from "../support/stripe-fake.ts";

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

describe("Stripe's events after the sale, as Paylink reads them", () => {
  const secret = "whsec_after_sale";
  const processor = new StripeProcessor({ type: "stripe", secretKey: "sk_test_unused", webhookSecret: secret, baseUrl: null });
  /** An event built on Stripe's published example event, signed now. */
  const parse = (type: string, object: unknown, id = "evt_1") => {
    const payload = JSON.stringify({ ...(EXAMPLE_OBJECTS.event as object), id, type, created: 1_790_000_000, data: { object } });
    const t = Math.floor(Date.now() / 1000);
    return processor.parseNotification({ "stripe-signature": `t=${t},v1=${independent(payload, secret, t)}` }, payload);
  };
  const dispute = (fields: Record<string, unknown>) => ({ ...(EXAMPLE_OBJECTS.dispute as object), ...fields });

  it("reads every charge.dispute.* step on Paylink's payment (its PaymentIntent), in Paylink's minor units and words", () => {
    const base = { id: "dp_1", amount: 48900, currency: "isk", charge: "ch_1", payment_intent: "pi_1", reason: "fraudulent" };
    const steps: Array<[string, string, string]> = [
      ["charge.dispute.created", "warning_needs_response", "Open"],
      ["charge.dispute.updated", "needs_response", "Open"],
      ["charge.dispute.updated", "under_review", "Open"],
      ["charge.dispute.updated", "warning_under_review", "Open"],
      ["charge.dispute.funds_withdrawn", "needs_response", "Open"],
      ["charge.dispute.closed", "won", "Won"],
      ["charge.dispute.closed", "warning_closed", "Won"],
      ["charge.dispute.funds_reinstated", "won", "Won"],
      ["charge.dispute.closed", "lost", "Lost"],
    ];
    for (const [type, status, expected] of steps) {
      assert.deepEqual(parse(type, dispute({ ...base, status }), "evt_step"), [
        {
          dispute: {
            disputeReference: "dp_1",
            eventReference: "evt_step",
            payfacReference: "pi_1",
            status: expected,
            processorEvent: type,
            amount: { value: 48900, currency: "ISK" },
            reason: "fraudulent",
            occurredAt: new Date(1_790_000_000 * 1000),
          },
        },
      ]);
    }
    // MGA: two decimals in Paylink's (ISO's) units, none at Stripe.
    const [mga] = parse("charge.dispute.created", dispute({ ...base, amount: 1500, currency: "mga", status: "needs_response" }))!;
    assert.deepEqual((mga as { dispute: { amount: unknown } }).dispute.amount, { value: 150000, currency: "MGA" });
    // A status this version does not know decides nothing (acknowledged, not recorded).
    assert.deepEqual(parse("charge.dispute.updated", dispute({ ...base, status: "some_new_status" })), []);
  });

  it("reads a refund's final state, with Paylink's own reference; a pending one decides nothing", () => {
    const refund = { ...(EXAMPLE_OBJECTS.refund as object), id: "re_1", payment_intent: "pi_1", metadata: { paylinkReference: "R1" } };
    assert.deepEqual(parse("refund.updated", { ...refund, status: "pending" }), []);
    assert.deepEqual(parse("charge.refund.updated", { ...refund, status: "succeeded" }), [
      {
        modification: { processorReference: "re_1", paylinkReference: "R1", originalPayfacReference: "pi_1", succeeded: true, reason: "" },
      },
    ]);
    assert.deepEqual(parse("refund.failed", { ...refund, status: "failed", failure_reason: "lost_or_stolen_card" }), [
      {
        modification: {
          processorReference: "re_1",
          paylinkReference: "R1",
          originalPayfacReference: "pi_1",
          succeeded: false,
          reason: "lost_or_stolen_card",
        },
      },
    ]);
  });

  it("reads a saved-card charge's PaymentIntent events only; the off-session authentication_required is no decline", () => {
    const intent = {
      ...(EXAMPLE_OBJECTS.payment_intent as object),
      id: "pi_1",
      metadata: { checkoutReference: "C1", paylinkCharge: "saved-card" },
    };
    assert.deepEqual(parse("payment_intent.succeeded", { ...intent, status: "succeeded" }), [
      { checkoutReference: "C1", outcome: { kind: "approved", payfacReference: "pi_1", authCode: "", token: null, card: NO_CARD } },
    ]);
    const failed = (code: string) => ({ ...intent, status: "requires_payment_method", last_payment_error: { code } });
    assert.deepEqual(parse("payment_intent.payment_failed", failed("authentication_required")), []);
    assert.deepEqual(parse("payment_intent.payment_failed", failed("payment_intent_authentication_failure")), [
      { checkoutReference: "C1", outcome: { kind: "declined", payfacReference: "pi_1", reason: "Authentication failed", card: NO_CARD } },
    ]);
    // A Checkout payment's PaymentIntent is decided by its session's events, not these.
    assert.deepEqual(parse("payment_intent.succeeded", { ...intent, status: "succeeded", metadata: { checkoutReference: "C1" } }), []);
  });

  it("converts Stripe's amounts back exactly", () => {
    assert.equal(fromStripeAmount(48900, "isk"), 48900);
    assert.equal(fromStripeAmount(500, "JPY"), 500);
    assert.equal(fromStripeAmount(5120, "KWD"), 5120);
  });
});

describe("adjusting and capturing at Stripe", () => {
  let stripe: FakeStripe;
  let processor: StripeProcessor;
  before(async () => {
    stripe = await startFakeStripe();
    processor = new StripeProcessor({
      type: "stripe",
      secretKey: stripe.secretKey,
      webhookSecret: stripe.webhookSecret,
      baseUrl: stripe.baseUrl,
    });
  });
  after(async () => {
    await stripe?.close();
  });

  it("raises an authorisation with increment_authorization, refuses to lower one, and captures once", async () => {
    const started = await processor.startHostedPayment({
      checkoutReference: "attempt-adjust-1",
      kind: "payment",
      amount: 48900,
      currency: "ISK",
      saveCard: false,
      recurringProcessingModel: null,
      returnUrl: "http://127.0.0.1/return",
      cancelUrl: "http://127.0.0.1/cancel",
      expiresAt: new Date(Date.now() + 15 * 60_000),
      culture: "en",
      capture: { manual: true, hoursDelay: null, preAuth: false },
      items: [],
    });
    const paid = await fetch(`${stripe.origin}/c/pay/${started.processorReference}`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "cardNumber=4242424242424242",
    });
    assert.equal(paid.status, 303);
    const intent = stripe.sessions.get(started.processorReference).payment_intent as string;
    const modification = (reference: string, amount: number) => ({
      modificationReference: reference,
      originalPayfacReference: intent,
      amount,
      currency: "ISK",
    });
    assert.deepEqual(await processor.adjustAuthorisation(modification("ADJ1", 60000)), { accepted: true });
    assert.equal(stripe.paymentIntents.get(intent).amount, 60000);
    const lowered = await processor.adjustAuthorisation(modification("ADJ2", 50000));
    assert.equal(lowered.accepted, false);
    assert.deepEqual(await processor.capture(modification("CAP1", 30000)), { accepted: true });
    const again = await processor.capture(modification("CAP2", 10000));
    assert.equal(again.accepted, false, "Stripe captures once");
    assert.match((again as { reason: string }).reason, /Refused by Stripe/);
    // The same capture asked again (a lost answer) is Stripe's stored answer: still accepted.
    assert.deepEqual(await processor.capture(modification("CAP1", 30000)), { accepted: true });
    // An amount Stripe cannot take is refused before anything is sent.
    assert.equal((await processor.refund(modification("REF1", 150))).accepted, false);
    for (const sent of stripe.requests) assert.deepEqual(sent.errors, [], sent.route);
  });
});

const NO_CARD = { brand: null, usage: null, masked: null, last4: null, expiry: null };
