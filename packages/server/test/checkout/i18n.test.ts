// The checkout's two languages: amounts formatted per language and currency, and every text
// present in both.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MESSAGES } from "../../src/checkout/i18n.ts";
import { formatMoney } from "../../src/web/i18n.ts";

describe("amounts per language", () => {
  it("shows ISK without decimals: 48900 → 489 kr.", () => {
    assert.equal(formatMoney(48900, "ISK", "is"), "489 kr.");
    assert.equal(formatMoney(48900, "ISK", "en"), "ISK 489");
    assert.equal(formatMoney(123456700, "ISK", "is"), "1.234.567 kr.");
    assert.equal(formatMoney(0, "ISK", "is"), "0 kr.");
  });
  it("shows other currencies with their decimals", () => {
    assert.equal(formatMoney(1250, "EUR", "is"), "12,50 EUR");
    assert.equal(formatMoney(1250, "EUR", "en"), "EUR 12.50");
    assert.equal(formatMoney(1000, "JPY", "en"), "JPY 1,000");
    assert.equal(formatMoney(1234, "KWD", "en"), "KWD 1.234");
  });
  it("has every text in both languages", () => {
    const keys = (value: object): string[] =>
      Object.entries(value).flatMap(([k, v]) => (v && typeof v === "object" ? keys(v).map((sub) => `${k}.${sub}`) : [k]));
    assert.deepEqual(
      keys(MESSAGES.is)
        .filter((k) => !k.startsWith("declineReasons"))
        .sort(),
      keys(MESSAGES.en)
        .filter((k) => !k.startsWith("declineReasons"))
        .sort(),
    );
  });
});
