// The checkout form reader: the card expiry as shoppers type it, the fields of a posted form
// (first of repeated fields, text PostgreSQL can store), and one problem per field.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formText, parseExpiry, readCheckoutForm } from "../../src/checkout/form.ts";

const NOW = new Date("2026-05-15T12:00:00Z");

describe("expiry", () => {
  it("accepts MM/YY to the end of the month, and common variants", () => {
    assert.deepEqual(parseExpiry("05/26", NOW), { month: 5, year: 2026 });
    assert.deepEqual(parseExpiry(" 12 / 2030 ", NOW), { month: 12, year: 2030 });
    assert.deepEqual(parseExpiry("0827", NOW), { month: 8, year: 2027 });
    assert.deepEqual(parseExpiry("8/27", NOW), { month: 8, year: 2027 });
  });
  it("refuses past, malformed and absurd dates", () => {
    assert.equal(parseExpiry("04/26", NOW), "past");
    assert.equal(parseExpiry("12/25", NOW), "past");
    assert.equal(parseExpiry("13/27", NOW), "invalid");
    assert.equal(parseExpiry("00/27", NOW), "invalid");
    assert.equal(parseExpiry("827", NOW), "invalid");
    assert.equal(parseExpiry("ab/cd", NOW), "invalid");
    assert.equal(parseExpiry("01/99", NOW), "invalid");
    assert.equal(parseExpiry("  ", NOW), "empty");
  });
});

describe("form reader", () => {
  const shopperInfo = [
    { field: "EmailAddress" as const, requirementType: "Required" as const, prefilledValue: null },
    { field: "FullName" as const, requirementType: "Prefilled" as const, prefilledValue: "Anna" },
    { field: "Telephone" as const, requirementType: "Hidden" as const, prefilledValue: null },
  ];
  it("returns the card, a safe summary and the answers", () => {
    const result = readCheckoutForm(
      {
        EmailAddress: "a@b.is",
        FullName: "ignored",
        Telephone: "5551234",
        cardNumber: "4111 1111 1111 1111",
        cardExpiry: "08/27",
        cardCvc: "737",
        cardHolder: " Anna  Jóns ",
      },
      shopperInfo,
      NOW,
    );
    assert.equal(result.ok, true);
    if (!result.ok) throw new Error("unreachable");
    assert.deepEqual(result.value.card, { number: "4111111111111111", expiryMonth: 8, expiryYear: 2027, cvc: "737", holder: "Anna Jóns" });
    assert.deepEqual(result.value.cardSummary, { brand: "VI", masked: "411111******1111", last4: "1111", expiry: "08/2027" });
    assert.deepEqual(result.value.answers, [
      { field: "EmailAddress", value: "a@b.is" },
      { field: "FullName", value: "Anna" },
    ]);
    assert.equal("cardNumber" in result.redisplay, false);
    assert.equal("cardCvc" in result.redisplay, false);
  });
  it("takes the first of repeated fields and ignores non-string values", () => {
    const result = readCheckoutForm(
      { EmailAddress: ["a@b.is", "c@d.is"], cardNumber: ["4111111111111111"], cardExpiry: "08/27", cardCvc: "737" },
      shopperInfo,
      NOW,
    );
    assert.equal(result.ok, true);
  });
  it("drops characters PostgreSQL cannot store (NUL, other controls, lone surrogates), keeps emoji and line breaks", () => {
    assert.equal(formText({ a: "An\u0000na\u0007 \uD83D\uDE00\uD800\nx\uDC00" }, "a"), "Anna \uD83D\uDE00\nx");
    assert.equal(formText({ a: 5 }, "a"), "");
    assert.equal(formText(Object.create({ a: "inherited" }), "a"), "");
  });
  it("reports each problem once per field", () => {
    const result = readCheckoutForm({ cardNumber: "4111 1111 1111 1112", cardExpiry: "04/26", cardCvc: "12" }, shopperInfo, NOW);
    assert.equal(result.ok, false);
    if (result.ok) throw new Error("unreachable");
    assert.deepEqual(
      result.errors.map((e) => `${e.field}:${e.problem}`),
      ["EmailAddress:required", "cardNumber:card_number_invalid", "cardExpiry:card_expiry_past", "cardCvc:card_cvc_invalid"],
    );
  });
});
