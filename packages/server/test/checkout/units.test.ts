// Pure parts of the checkout: card helpers, the sandbox table (SPEC §3.1), expiry parsing, the
// form reader, amount formatting per language, the signed form token, theme safety.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CHECKOUT_CSS } from "../../src/checkout/assets.ts";
import { formText, parseExpiry, readCheckoutForm } from "../../src/checkout/form.ts";
import { FORM_TOKEN_TTL_SECONDS, issueFormToken, verifyFormToken } from "../../src/checkout/form-token.ts";
import { formatMoney, MESSAGES } from "../../src/checkout/i18n.ts";
import { withCheckoutReference } from "../../src/checkout/return-url.ts";
import { contrastRatio, logoPath, normaliseHexColour, pageTheme } from "../../src/checkout/theme.ts";
import { cardBrand, luhnValid, maskCardNumber } from "../../src/payments/cards.ts";
import { errorName } from "../../src/payments/error-name.ts";
import type { AuthorizeRequest } from "../../src/payments/processor.ts";
import { SandboxProcessor } from "../../src/payments/sandbox.ts";

const NOW = new Date("2026-05-15T12:00:00Z");

describe("card helpers", () => {
  it("checks Luhn", () => {
    for (const good of ["4111111111111111", "5555555555554444", "4000000000000002", "378282246310005", "79927398713"])
      assert.equal(luhnValid(good), true, good);
    for (const bad of ["4111111111111112", "1234567812345678", "", "4111-1111"]) assert.equal(luhnValid(bad), false, bad);
  });

  it("masks to at most the first six and last four digits", () => {
    assert.equal(maskCardNumber("4111111111111111"), "411111******1111");
    assert.equal(maskCardNumber("4111111111111111111"), "411111*********1111");
    assert.equal(maskCardNumber("378282246310005"), "378282*****0005");
    assert.equal(maskCardNumber("411111111119"), "4111****1119");
  });

  it("knows the brands of the sandbox cards", () => {
    assert.deepEqual(cardBrand("4111111111111111"), { brand: "VI", paymentMethod: "VI" });
    assert.deepEqual(cardBrand("5555555555554444"), { brand: "MC", paymentMethod: "MC" });
    assert.deepEqual(cardBrand("2223003122003222"), { brand: "MC", paymentMethod: "MC" });
    assert.deepEqual(cardBrand("378282246310005"), { brand: "AX", paymentMethod: "AX" });
  });
});

describe("sandbox processor (SPEC §3.1)", () => {
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

describe("form token", () => {
  const key = Buffer.alloc(32, 7);
  const price = { amount: 48900, currency: "ISK" };
  it("is bound to the link and carries the attempt and the price shown", () => {
    const token = issueFormToken(key, "linkA", NOW, price, "attempt-key-0123456789");
    assert.deepEqual(verifyFormToken(key, "linkA", token, NOW), { attemptKey: "attempt-key-0123456789", amount: 48900, currency: "ISK" });
    assert.equal(verifyFormToken(key, "linkB", token, NOW), null);
    assert.equal(verifyFormToken(Buffer.alloc(32, 8), "linkA", token, NOW), null);
  });
  it("refuses tampered, malformed and expired tokens", () => {
    const token = issueFormToken(key, "linkA", NOW, price);
    const [attempt, issued, shown, mac] = token.split(".") as [string, string, string, string];
    assert.equal(shown, "48900ISK");
    assert.equal(verifyFormToken(key, "linkA", `${attempt}x.${issued}.${shown}.${mac}`, NOW), null);
    assert.equal(verifyFormToken(key, "linkA", `${attempt}.${Number(issued) + 1}.${shown}.${mac}`, NOW), null);
    assert.equal(verifyFormToken(key, "linkA", `${attempt}.${issued}.100ISK.${mac}`, NOW), null, "the price cannot be edited");
    assert.equal(verifyFormToken(key, "linkA", `${attempt}.${issued}.48900EUR.${mac}`, NOW), null, "nor the currency");
    const flipped = mac.slice(0, -1) + (mac.endsWith("A") ? "B" : "A");
    assert.equal(verifyFormToken(key, "linkA", `${attempt}.${issued}.${shown}.${flipped}`, NOW), null);
    assert.equal(verifyFormToken(key, "linkA", "", NOW), null);
    assert.equal(verifyFormToken(key, "linkA", "a.b.c", NOW), null);
    const later = new Date(NOW.getTime() + (FORM_TOKEN_TTL_SECONDS + 1) * 1000);
    assert.equal(verifyFormToken(key, "linkA", token, later), null);
    const earlier = new Date(NOW.getTime() - 60 * 60 * 1000);
    assert.equal(verifyFormToken(key, "linkA", token, earlier), null, "issued in the future");
  });
});

describe("theme safety", () => {
  it("accepts only hex colours", () => {
    assert.equal(normaliseHexColour("#ABCDEF"), "#abcdef");
    assert.equal(normaliseHexColour("#abc"), "#aabbcc");
    assert.equal(normaliseHexColour("red;}body{display:none"), null);
    assert.equal(normaliseHexColour("#12345g"), null);
  });
  it("picks readable text on the brand colour", () => {
    const dark = pageTheme({ merchantName: "M", theme: { themeKey: "thm_1", name: "T", primaryColor: "#123456", logoVersion: null } });
    assert.equal(dark.onBrand, "#ffffff");
    assert.equal(dark.accent, "#123456");
    const light = pageTheme({ merchantName: "M", theme: { themeKey: "thm_1", name: "T", primaryColor: "#ffe600", logoVersion: null } });
    assert.equal(light.onBrand, "#111111");
    assert.equal(light.accent, "#1a1d21", "a pale brand colour is not used for focus rings");
    assert.ok(contrastRatio(light.brand, light.onBrand) >= 4.5);
  });
  it("falls back to the merchant name and the default colour", () => {
    const theme = pageTheme({ merchantName: "Merchant", theme: null });
    assert.equal(theme.name, "Merchant");
    assert.equal(theme.brand, "#1f4e8c");
  });
  it("shows a stored logo from Paylink's own origin, versioned; no logo without a stored copy", () => {
    const theme = pageTheme({
      merchantName: "M",
      theme: { themeKey: "thm_abc", name: "T", primaryColor: null, logoVersion: "0123456789abcdef" },
    });
    assert.equal(theme.logoSrc, "/pay/assets/logos/thm_abc?v=0123456789abcdef");
    assert.equal(logoPath("a b", "v/1"), "/pay/assets/logos/a%20b?v=v%2F1");
    assert.equal(
      pageTheme({ merchantName: "M", theme: { themeKey: "thm_abc", name: "T", primaryColor: null, logoVersion: null } }).logoSrc,
      null,
    );
  });
  it("keeps the page CSS free of characters the HTML renderer would escape", () => {
    assert.doesNotMatch(CHECKOUT_CSS, /[<&"]/);
  });
});

describe("logging errors", () => {
  it("masks digits, so a card number or CVC in an error message never reaches a log", () => {
    assert.equal(errorName(new Error("card 4111111111111111 cvc 737 refused")), "Error: card # cvc # refused");
  });
});

describe("returnUrl with checkoutReference", () => {
  it("appends to the query as text, keeping the merchant's encoding and the fragment", () => {
    assert.equal(withCheckoutReference("https://shop.example/thanks", "chk_1"), "https://shop.example/thanks?checkoutReference=chk_1");
    assert.equal(
      withCheckoutReference("https://shop.example/t?order=42", "chk_1"),
      "https://shop.example/t?order=42&checkoutReference=chk_1",
    );
    assert.equal(
      withCheckoutReference("https://shop.example/t?sig=a%2Fb%20c&flag&x=1~#done", "chk_1"),
      "https://shop.example/t?sig=a%2Fb%20c&flag&x=1~&checkoutReference=chk_1#done",
    );
    assert.equal(withCheckoutReference("https://shop.example/t?", "chk_1"), "https://shop.example/t?checkoutReference=chk_1");
    assert.equal(withCheckoutReference("https://shop.example/t?a=1&", "a b"), "https://shop.example/t?a=1&checkoutReference=a%20b");
  });
});
