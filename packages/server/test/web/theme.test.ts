// Theme safety on the checkout page: only hex colours reach the CSS, text stays readable on the
// brand colour, and a logo is shown only from Paylink's own stored copy.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { contrastRatio, logoPath, normaliseHexColour, pageTheme } from "../../src/web/theme.ts";

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
});
