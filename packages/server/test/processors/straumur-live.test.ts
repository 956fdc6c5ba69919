// Opt-in: the live gateway's own test environment, for people who have its test credentials. Skipped
// unless PAYLINK_TEST_STRAUMUR_API_KEY, PAYLINK_TEST_STRAUMUR_TERMINAL and PAYLINK_TEST_STRAUMUR_HMAC_KEY
// are set; PAYLINK_TEST_STRAUMUR_TOKEN (a card saved at that terminal) adds a token charge and its
// reversal. It proves the adapter's requests are the ones the real gateway accepts; the local fake
// (test/support/gateway.ts) proves everything else without the network.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { StraumurProcessor } from "../../src/payments/straumur.ts";

const apiKey = process.env.PAYLINK_TEST_STRAUMUR_API_KEY;
const terminalIdentifier = process.env.PAYLINK_TEST_STRAUMUR_TERMINAL;
const hmacKey = process.env.PAYLINK_TEST_STRAUMUR_HMAC_KEY;
const token = process.env.PAYLINK_TEST_STRAUMUR_TOKEN;
const configured = Boolean(apiKey && terminalIdentifier && hmacKey);

describe("the live gateway's test environment (opt-in)", { skip: !configured && "no PAYLINK_TEST_STRAUMUR_* credentials" }, () => {
  const gateway = () =>
    new StraumurProcessor({
      type: "straumur",
      environment: "test",
      apiKey: apiKey!,
      terminalIdentifier: terminalIdentifier!,
      hmacKey: hmacKey!,
      themeKey: null,
      baseUrl: null,
    });

  it("creates a hosted payment page and reads it back as open", async () => {
    const checkoutReference = randomBytes(16).toString("hex");
    const started = await gateway().startHostedPayment({
      checkoutReference,
      kind: "payment",
      amount: 10000,
      currency: "ISK",
      saveCard: false,
      recurringProcessingModel: null,
      returnUrl: "https://paylink.example/pay/live-test/return",
      cancelUrl: "https://paylink.example/pay/live-test",
      expiresAt: new Date(Date.now() + 15 * 60_000),
      culture: "en",
      items: [{ name: "Live test", amount: 10000, quantity: 1, unitPrice: 10000 }],
      capture: null,
    });
    assert.match(started.redirectUrl, /^https:\/\//);
    const outcome = await gateway().readOutcome({ checkoutReference, processorReference: started.processorReference });
    assert.equal(outcome.kind, "open");
  });

  it("charges a saved card and reverses the charge", { skip: !token && "no PAYLINK_TEST_STRAUMUR_TOKEN" }, async () => {
    const checkoutReference = randomBytes(16).toString("hex");
    const charge = {
      token: token!,
      card: { brand: "VI", masked: "", last4: "", expiry: "", usage: null },
      amount: 10000,
      currency: "ISK",
      recurringProcessingModel: "UnscheduledCardOnFile" as const,
      checkoutReference,
      merchantReference: `live-test-${checkoutReference}`,
      returnUrl: "https://paylink.example/processors/authenticate/live-test/done",
    };
    const result = await gateway().chargeToken(charge);
    assert.notEqual(result.approved, "shopper", "a merchant-initiated charge should not want the shopper");
    // The reversal replays the charge under its key and reverses what it finds: nothing stays charged.
    await gateway().reverseCharge(checkoutReference, charge);
  });
});
