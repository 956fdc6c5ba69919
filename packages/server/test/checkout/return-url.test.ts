// The redirect after a payment: checkoutReference appended to the merchant's returnUrl as text,
// so the merchant's own encoding (which may be signed) survives.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { withCheckoutReference } from "../../src/checkout/return-url.ts";

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
