// The sandbox processor: its table of test cards (approvals with brand and usage, declines with
// their reasons), and a token for any other Luhn-valid number when the card is to be saved.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AuthorizeRequest } from "../../src/payments/processor.ts";
import { SandboxProcessor } from "../../src/payments/sandbox.ts";

describe("sandbox processor", () => {
  const processor = new SandboxProcessor();
  const request = (number: string, saveCard = false): AuthorizeRequest => ({
    kind: "payment",
    amount: 48900,
    currency: "ISK",
    card: { number, expiryMonth: 8, expiryYear: 2030, cvc: "737", holder: "" },
    saveCard,
    recurringProcessingModel: null,
    checkoutReference: "x",
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
});
