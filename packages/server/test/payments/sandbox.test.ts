// The sandbox processor: its table of test cards (approvals with brand and usage, declines with
// their reasons), and a token for any other Luhn-valid number when the card is to be saved.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AuthorizeRequest } from "../../src/payments/processor.ts";
import { SandboxProcessor } from "../../src/payments/sandbox.ts";

describe("sandbox processor", () => {
  const processor = new SandboxProcessor();
  const request = (number: string, saveCard = false, checkoutReference = "x"): AuthorizeRequest => ({
    kind: "payment",
    amount: 48900,
    currency: "ISK",
    card: { number, expiryMonth: 8, expiryYear: 2030, cvc: "737", holder: "" },
    saveCard,
    recurringProcessingModel: null,
    checkoutReference,
    merchantReference: "y",
  });

  it("approves the approval cards with brand and usage", async () => {
    const visa = await processor.authorize(request("4111111111111111"));
    assert.equal(visa.approved, true);
    assert.equal(visa.cardBrand, "VI");
    assert.equal(visa.cardUsage, "Debit");
    const mc = await processor.authorize(request("5555555555554444"));
    assert.equal(mc.cardBrand, "MC");
    assert.equal(mc.cardUsage, "Credit");
    if (!visa.approved) throw new Error("unreachable");
    assert.match(visa.payfacReference, /^[0-9A-Z]{16}$/);
    assert.match(visa.authCode, /^\d{6}$/);
    assert.equal(visa.token, null);
  });

  it("declines with the table's reasons", async () => {
    for (const [number, reason] of [
      ["4000000000000002", "Refused"],
      ["4000000000000069", "Expired Card"],
      ["4000000000000127", "CVC Declined"],
    ] as const) {
      const result = await processor.authorize(request(number));
      assert.equal(result.approved, false);
      if (result.approved) throw new Error("unreachable");
      assert.equal(result.reason, reason);
      assert.match(result.payfacReference, /^[0-9A-Z]{16}$/);
    }
  });

  it("approves any other Luhn-valid number, with a token when asked to save the card", async () => {
    const result = await processor.authorize(request("4242424242424242", true));
    assert.equal(result.approved, true);
    if (!result.approved) throw new Error("unreachable");
    assert.match(result.token!, /^[0-9A-Z]{16}$/);
  });

  // The processor contract (payments/processor.ts): once reverseAttempt has confirmed, that
  // checkoutReference is never authorised, also when the authorize call was already under way and
  // its caller gave no abort signal (a reply that arrives after the reversal must not be a charge).
  it("an attempt reversed while its authorize is still running is declined, not approved (no abort signal)", async () => {
    const slow = new SandboxProcessor({ latencyMs: 50 });
    const answer = slow.authorize(request("4111111111111111", true, "reversed-in-flight"));
    await slow.reverseAttempt("reversed-in-flight");
    const result = await answer;
    assert.equal(result.approved, false);
    if (result.approved) throw new Error("unreachable");
    assert.equal(result.reason, "Reversed");
    assert.equal(slow.approvals.has("reversed-in-flight"), false, "nothing stands to be voided");
  });

  it("an authorize for a checkoutReference already reversed is declined", async () => {
    await processor.reverseAttempt("reversed-before");
    const result = await processor.authorize(request("5555555555554444", false, "reversed-before"));
    assert.equal(result.approved, false);
    assert.equal(processor.approvals.has("reversed-before"), false);
    // Another reference is not affected.
    assert.equal((await processor.authorize(request("5555555555554444", false, "not-reversed"))).approved, true);
  });
});
