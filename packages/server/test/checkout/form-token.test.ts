// The signed form token: bound to its link, carrying the attempt and the price shown, refused
// when tampered with, malformed, expired or issued in the future.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FORM_TOKEN_TTL_SECONDS, issueFormToken, verifyFormToken } from "../../src/checkout/form-token.ts";

const NOW = new Date("2026-05-15T12:00:00Z");

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
