// The signed form token: bound to its link, carrying the attempt, the price and the cart shown,
// refused when tampered with, malformed, expired or issued in the future.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FORM_TOKEN_TTL_SECONDS, issueFormToken, verifyFormToken } from "../../src/checkout/form-token.ts";
import { cartDigest } from "../../src/domain/links/cart.ts";

const NOW = new Date("2026-05-15T12:00:00Z");

describe("form token", () => {
  const key = Buffer.alloc(32, 7);
  const item = { name: "Lopapeysa", quantity: 1, unitPrice: 48900, amountWithoutDiscount: 48900, amount: 48900 };
  const price = { amount: 48900, currency: "ISK", cart: cartDigest([item]) };
  it("is bound to the link and carries the attempt, the price and the cart shown", () => {
    const token = issueFormToken(key, "linkA", NOW, price, "attempt-key-0123456789");
    assert.deepEqual(verifyFormToken(key, "linkA", token, NOW), {
      attemptKey: "attempt-key-0123456789",
      amount: 48900,
      currency: "ISK",
      cart: price.cart,
    });
    assert.equal(verifyFormToken(key, "linkB", token, NOW), null);
    assert.equal(verifyFormToken(Buffer.alloc(32, 8), "linkA", token, NOW), null);
  });
  it("refuses tampered, malformed and expired tokens", () => {
    const token = issueFormToken(key, "linkA", NOW, price);
    const [attempt, issued, shown, cart, mac] = token.split(".") as [string, string, string, string, string];
    assert.equal(shown, "48900ISK");
    assert.equal(cart, price.cart);
    assert.equal(verifyFormToken(key, "linkA", `${attempt}x.${issued}.${shown}.${cart}.${mac}`, NOW), null);
    assert.equal(verifyFormToken(key, "linkA", `${attempt}.${Number(issued) + 1}.${shown}.${cart}.${mac}`, NOW), null);
    assert.equal(verifyFormToken(key, "linkA", `${attempt}.${issued}.100ISK.${cart}.${mac}`, NOW), null, "the price cannot be edited");
    assert.equal(verifyFormToken(key, "linkA", `${attempt}.${issued}.48900EUR.${cart}.${mac}`, NOW), null, "nor the currency");
    const otherCart = cartDigest([{ ...item, name: "Vettlingar" }]);
    assert.equal(verifyFormToken(key, "linkA", `${attempt}.${issued}.${shown}.${otherCart}.${mac}`, NOW), null, "nor the cart");
    assert.equal(verifyFormToken(key, "linkA", `${attempt}.${issued}.${shown}.${mac}`, NOW), null, "a token without its cart (v2)");
    const flipped = mac.slice(0, -1) + (mac.endsWith("A") ? "B" : "A");
    assert.equal(verifyFormToken(key, "linkA", `${attempt}.${issued}.${shown}.${cart}.${flipped}`, NOW), null);
    assert.equal(verifyFormToken(key, "linkA", "", NOW), null);
    assert.equal(verifyFormToken(key, "linkA", "a.b.c", NOW), null);
    const later = new Date(NOW.getTime() + (FORM_TOKEN_TTL_SECONDS + 1) * 1000);
    assert.equal(verifyFormToken(key, "linkA", token, later), null);
    const earlier = new Date(NOW.getTime() - 60 * 60 * 1000);
    assert.equal(verifyFormToken(key, "linkA", token, earlier), null, "issued in the future");
  });

  it("the cart digest changes with any item's name, quantity, prices or order, and only with them", () => {
    const other = { name: "Húfa", quantity: 2, unitPrice: 10000, amountWithoutDiscount: 20000, amount: 20000 };
    const base = cartDigest([item, other]);
    assert.match(base, /^[A-Za-z0-9_-]{22}$/);
    assert.equal(cartDigest([{ ...item }, { ...other }]), base);
    assert.notEqual(cartDigest([other, item]), base);
    for (const change of [{ name: "Lopapeysa " }, { quantity: 2 }, { unitPrice: 1 }, { amountWithoutDiscount: 1 }, { amount: 1 }]) {
      assert.notEqual(cartDigest([{ ...item, ...change }, other]), base, JSON.stringify(change));
    }
    assert.notEqual(cartDigest([]), base);
  });
});
