// Amounts in the services' English sentences: major units with the currency code first, as the
// portal's and the checkout's English pages write them (formatMoney with "en"), never the wire's
// minor units.
import assert from "node:assert/strict";
import { test } from "node:test";
import { moneyText } from "../../src/domain/money/money-text.ts";
import { formatMoney } from "../../src/web/i18n.ts";

test("a wire amount reads in major units, thousands separated, currency code first", () => {
  assert.equal(moneyText(99_999_900, "ISK"), "ISK 999,999");
  assert.equal(moneyText(29_900, "ISK"), "ISK 299");
  assert.equal(moneyText(0, "ISK"), "ISK 0");
  assert.equal(moneyText(100_000_000_000, "ISK"), "ISK 1,000,000,000");
  assert.equal(moneyText(1250, "EUR"), "EUR 12.50");
  assert.equal(moneyText(5, "EUR"), "EUR 0.05");
  assert.equal(moneyText(123_456_789, "USD"), "USD 1,234,567.89");
  assert.equal(moneyText(1234, "KWD"), "KWD 1.234");
  assert.equal(moneyText(7, "JPY"), "JPY 7");
});

test("an ISK amount in hundredths that is not whole krónur keeps its hundredths rather than being rounded", () => {
  assert.equal(moneyText(12_345, "ISK"), "ISK 123.45");
  assert.equal(moneyText(12_340, "ISK"), "ISK 123.40");
});

test("the same text as the English pages show for whole amounts", () => {
  for (const [amount, currency] of [
    [99_999_900, "ISK"],
    [48_900, "ISK"],
    [1250, "EUR"],
    [123_456_789, "USD"],
    [1234, "KWD"],
  ] as const) {
    assert.equal(moneyText(amount, currency), formatMoney(amount, currency, "en"), `${amount} ${currency}`);
  }
});
