// Amounts as typed in the portal, in each page language: the thousands and decimal marks of the
// language, plain digits in either, and what no reading makes an amount.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatDisplayAmount, parseDisplayAmount } from "../../src/domain/money/display-amount.ts";

describe("amounts typed in the portal", () => {
  it("reads Icelandic writing: . groups thousands, , marks decimals", () => {
    assert.equal(parseDisplayAmount("18.900", "ISK", "is"), 1_890_000);
    assert.equal(parseDisplayAmount("18900", "ISK", "is"), 1_890_000);
    assert.equal(parseDisplayAmount("1.234.567", "ISK", "is"), 123_456_700);
    assert.equal(parseDisplayAmount(" 18 900 ", "ISK", "is"), 1_890_000);
    assert.equal(parseDisplayAmount("1.234,50", "EUR", "is"), 123_450);
    assert.equal(parseDisplayAmount("12,5", "EUR", "is"), 1_250);
    assert.equal(parseDisplayAmount("12.50", "EUR", "is"), 1_250, "no thousands reading: the dot is the decimal point");
  });

  it("reads English writing: , groups thousands, . marks decimals", () => {
    assert.equal(parseDisplayAmount("18,900", "ISK", "en"), 1_890_000);
    assert.equal(parseDisplayAmount("1,234.50", "EUR", "en"), 123_450);
    assert.equal(parseDisplayAmount("12.50", "EUR", "en"), 1_250);
    assert.equal(parseDisplayAmount("12,50", "EUR", "en"), 1_250, "no thousands reading: the comma is the decimal point");
  });

  it("refuses what no reading makes an amount in the currency", () => {
    for (const [text, currency, lang] of [
      ["18.900", "ISK", "en"],
      ["18,900", "ISK", "is"],
      ["18.90", "ISK", "is"],
      ["1.23.456", "ISK", "is"],
      ["12,345", "EUR", "is"],
      ["12.345", "EUR", "en"],
      ["", "ISK", "is"],
      ["-5", "ISK", "en"],
      ["1e5", "ISK", "en"],
      ["4 890 kr.", "ISK", "is"],
      ["9".repeat(16), "ISK", "is"],
    ] as const) {
      assert.equal(parseDisplayAmount(text, currency, lang), null, `${text} ${currency} ${lang}`);
    }
  });

  it("reads back what it writes into the forms, in both languages", () => {
    for (const [amount, currency] of [
      [1_890_000, "ISK"],
      [1_250, "EUR"],
      [100, "JPY"],
    ] as const) {
      for (const lang of ["is", "en"] as const)
        assert.equal(parseDisplayAmount(formatDisplayAmount(amount, currency), currency, lang), amount);
    }
  });
});
