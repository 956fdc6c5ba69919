// Which saved cards a session page offers: valid to the end of the expiry month, never disabled.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cardOffered } from "../../src/domain/payments/saved-card-offer.ts";

describe("saved card offer", () => {
  const now = new Date("2026-11-28T12:00:00Z");
  it("offers a card to the end of its expiry month", () => {
    assert.equal(cardOffered({ expiry: "11/2026", disabled: false }, now), true);
    assert.equal(cardOffered({ expiry: "01/2027", disabled: false }, now), true);
    assert.equal(cardOffered({ expiry: "12/2030", disabled: false }, now), true);
  });
  it("does not offer an expired, a disabled or an unreadable card", () => {
    assert.equal(cardOffered({ expiry: "10/2026", disabled: false }, now), false);
    assert.equal(cardOffered({ expiry: "12/2025", disabled: false }, now), false);
    assert.equal(cardOffered({ expiry: "12/2030", disabled: true }, now), false);
    assert.equal(cardOffered({ expiry: "", disabled: false }, now), false);
    assert.equal(cardOffered({ expiry: "1/30", disabled: false }, now), false);
  });
});
