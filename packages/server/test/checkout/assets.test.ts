// The checkout page's stylesheet, served as a file of its own under a versioned URL.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CHECKOUT_CSS, CHECKOUT_CSS_PATH } from "../../src/checkout/assets.ts";

describe("checkout assets", () => {
  it("makes the stylesheet ask for nothing more (no import, no URL), under a URL that names its version", () => {
    assert.doesNotMatch(CHECKOUT_CSS, /@import|url\(/);
    assert.match(CHECKOUT_CSS_PATH, /^\/pay\/assets\/checkout\.css\?v=[0-9a-f]{12}$/);
  });
});
