// The checkout page's stylesheet, which the page renderer inlines.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CHECKOUT_CSS } from "../../src/checkout/assets.ts";

describe("checkout assets", () => {
  it("keeps the page CSS free of characters the HTML renderer would escape", () => {
    assert.doesNotMatch(CHECKOUT_CSS, /[<&"]/);
  });
});
