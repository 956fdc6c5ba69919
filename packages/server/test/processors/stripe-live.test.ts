// Opt-in: Stripe's test mode, for people who have a Stripe test key. Skipped unless
// PAYLINK_TEST_STRIPE_SECRET_KEY (sk_test_…) is set. It proves the adapter's requests are the ones
// Stripe itself accepts: a Checkout Session, and the after-sale path on cards Stripe's test mode
// provides (a Customer with pm_card_visa attached, and one that always wants 3-D Secure). The local
// fake (test/support/stripe-fake.ts) proves everything else without the network.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import type { TokenChargeRequest } from "../../src/payments/processor.ts";
import { StripeProcessor } from "../../src/payments/stripe.ts";
import { STRIPE_API_BASE } from "../../src/payments/stripe-api.ts";

const secretKey = process.env.PAYLINK_TEST_STRIPE_SECRET_KEY;
const configured = Boolean(secretKey?.startsWith("sk_test_"));

/** Sets a card up as Stripe Checkout leaves a saved one: a PaymentMethod attached to a Customer. */
async function savedTestCard(testMethod: "pm_card_visa" | "pm_card_authenticationRequired"): Promise<string> {
  const call = async (path: string, form: Record<string, string>) => {
    const response = await fetch(`${STRIPE_API_BASE}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${secretKey}`, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form).toString(),
    });
    const body = (await response.json()) as { id?: string };
    assert.ok(response.ok && body.id, `${path}: ${response.status}`);
    return body.id;
  };
  const customer = await call("/v1/customers", { description: "Paylink live test" });
  return call(`/v1/payment_methods/${testMethod}/attach`, { customer });
}

describe("Stripe's test mode (opt-in)", { skip: !configured && "no PAYLINK_TEST_STRIPE_SECRET_KEY (sk_test_…)" }, () => {
  const stripe = () =>
    new StripeProcessor({ type: "stripe", secretKey: secretKey!, webhookSecret: "whsec_live_test_unused", baseUrl: null });
  const chargeOf = (token: string, amount = 1000): Omit<TokenChargeRequest, "signal"> => {
    const checkoutReference = randomBytes(16).toString("hex");
    return {
      token,
      card: { brand: "VI", masked: "", last4: "", expiry: "", usage: null },
      amount,
      currency: "EUR",
      recurringProcessingModel: "UnscheduledCardOnFile",
      checkoutReference,
      merchantReference: `live-test-${checkoutReference}`,
      returnUrl: "https://paylink.example/processors/authenticate/live-test/done",
    };
  };

  it("creates a Checkout Session and reads it back as open", async () => {
    const checkoutReference = randomBytes(16).toString("hex");
    const started = await stripe().startHostedPayment({
      checkoutReference,
      kind: "payment",
      amount: 1000,
      currency: "EUR",
      saveCard: false,
      recurringProcessingModel: null,
      returnUrl: "https://paylink.example/pay/live-test/return",
      cancelUrl: "https://paylink.example/pay/live-test",
      expiresAt: new Date(Date.now() + 15 * 60_000),
      culture: "en",
      items: [{ name: "Live test", amount: 1000, quantity: 1, unitPrice: 1000 }],
      capture: null,
    });
    assert.match(started.redirectUrl, /^https:\/\/checkout\.stripe\.com\//);
    const outcome = await stripe().readOutcome({ checkoutReference, processorReference: started.processorReference });
    assert.equal(outcome.kind, "open");
  });

  it("charges a saved card, refunds part of it and reverses the rest", async () => {
    const charge = chargeOf(await savedTestCard("pm_card_visa"));
    const result = await stripe().chargeToken(charge);
    assert.equal(result.approved, true, JSON.stringify(result));
    if (result.approved !== true) return;
    const refund = await stripe().refund({
      modificationReference: `refund-${charge.checkoutReference}`,
      originalPayfacReference: result.payfacReference,
      amount: 400,
      currency: "EUR",
    });
    assert.notEqual(refund.accepted, false, JSON.stringify(refund));
    const reversal = await stripe().cancelOrRefund({
      modificationReference: `reverse-${charge.checkoutReference}`,
      originalPayfacReference: result.payfacReference,
      amount: 600,
      currency: "EUR",
    });
    assert.notEqual(reversal.accepted, false, JSON.stringify(reversal));
  });

  it("a card that wants 3-D Secure: the shopper is sent to Stripe's page, and the charge is voided by its reversal", async () => {
    const charge = chargeOf(await savedTestCard("pm_card_authenticationRequired"));
    const result = await stripe().chargeToken(charge);
    assert.equal(result.approved, "shopper", JSON.stringify(result));
    if (result.approved === "shopper") assert.match(result.redirectUrl, /^https:\/\//);
    // Given up on: replayed under its key and cancelled, nothing stays charged.
    await stripe().reverseCharge(charge.checkoutReference, charge);
  });
});
