// Opt-in: Adyen's test environment, for people who have an Adyen test account. Skipped unless
// PAYLINK_TEST_ADYEN_API_KEY and PAYLINK_TEST_ADYEN_MERCHANT_ACCOUNT are set;
// PAYLINK_TEST_ADYEN_TOKEN (a card saved at that account through a Paylink tokenize link, as Paylink
// keeps it: `{storedPaymentMethodId}.{checkoutReference}`) adds a token charge, a refund and a
// reversal. It proves the adapter's requests are the ones Adyen itself accepts; the local fake
// (test/support/adyen-fake.ts) proves everything else without the network.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { AdyenProcessor } from "../../src/payments/adyen.ts";

const apiKey = process.env.PAYLINK_TEST_ADYEN_API_KEY;
const merchantAccount = process.env.PAYLINK_TEST_ADYEN_MERCHANT_ACCOUNT;
const token = process.env.PAYLINK_TEST_ADYEN_TOKEN;
const configured = Boolean(apiKey && merchantAccount);

describe("Adyen's test environment (opt-in)", { skip: !configured && "no PAYLINK_TEST_ADYEN_* credentials" }, () => {
  const adyen = () =>
    new AdyenProcessor({
      type: "adyen",
      environment: "test",
      apiKey: apiKey!,
      merchantAccount: merchantAccount!,
      // Only notifications are signed with it; none are received here.
      hmacKey: process.env.PAYLINK_TEST_ADYEN_HMAC_KEY ?? "00".repeat(32),
      liveEndpointUrlPrefix: null,
      baseUrl: null,
    });

  it("creates a hosted Checkout session on Adyen's page", async () => {
    const started = await adyen().startHostedPayment({
      checkoutReference: randomBytes(16).toString("hex"),
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
    assert.match(started.redirectUrl, /^https:\/\/checkoutshopper-test\.adyen\.com\//);
    assert.ok(started.processorReference);
  });

  it("charges a saved card, refunds part of it and reverses the rest", { skip: !token && "no PAYLINK_TEST_ADYEN_TOKEN" }, async () => {
    const checkoutReference = randomBytes(16).toString("hex");
    const charge = {
      token: token!,
      card: { brand: "VI", masked: "", last4: "", expiry: "", usage: null },
      amount: 1000,
      currency: "EUR",
      recurringProcessingModel: "UnscheduledCardOnFile" as const,
      checkoutReference,
      merchantReference: `live-test-${checkoutReference}`,
      returnUrl: "https://paylink.example/processors/authenticate/live-test/done",
    };
    const result = await adyen().chargeToken(charge);
    assert.equal(result.approved, true, JSON.stringify(result));
    if (result.approved !== true) return;
    const modification = { originalPayfacReference: result.payfacReference, currency: "EUR" };
    const refund = await adyen().refund({ ...modification, modificationReference: `refund-${checkoutReference}`, amount: 400 });
    assert.equal(refund.accepted, "received", JSON.stringify(refund));
    const reversal = await adyen().cancelOrRefund({ ...modification, modificationReference: `reverse-${checkoutReference}`, amount: 600 });
    assert.equal(reversal.accepted, "received", JSON.stringify(reversal));
    // A lost answer's reversal replays the charge under its key and reverses what it finds.
    await adyen().reverseCharge(checkoutReference, charge);
  });
});
