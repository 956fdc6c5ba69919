import assert from "node:assert/strict";
import { test } from "node:test";
import { displayExponent, ISO_4217_EXPONENTS, isKnownCurrency, wireExponent } from "../../src/domain/money/currencies.ts";

test("ISO 4217 exponents of key currencies", () => {
  const expected: Record<string, number> = {
    ISK: 0,
    EUR: 2,
    USD: 2,
    GBP: 2,
    DKK: 2,
    NOK: 2,
    SEK: 2,
    JPY: 0,
    KRW: 0,
    CLP: 0,
    BHD: 3,
    KWD: 3,
    JOD: 3,
    TND: 3,
    CLF: 4,
    UYW: 4,
  };
  for (const [code, exponent] of Object.entries(expected)) assert.equal(ISO_4217_EXPONENTS.get(code), exponent, code);
});

test("the table has the active codes only, all three upper-case letters", () => {
  assert.ok(ISO_4217_EXPONENTS.size > 150);
  for (const code of ISO_4217_EXPONENTS.keys()) assert.match(code, /^[A-Z]{3}$/);
  for (const code of ["XXX", "XTS", "XAU", "ABC", "isk", "EURO"]) assert.equal(isKnownCurrency(code), false, code);
});

test("ISK is in hundredths on the wire and whole krónur on screen", () => {
  assert.equal(wireExponent("ISK"), 2);
  assert.equal(displayExponent("ISK"), 0);
  assert.equal(wireExponent("EUR"), 2);
  assert.equal(wireExponent("JPY"), 0);
});
