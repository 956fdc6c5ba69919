// The name the portal gives a payment: its result, and for an approved one what of it went back.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { shownState } from "../../src/domain/payments/shown-state.ts";

describe("a payment's state as the portal names it", () => {
  it("tells refunds apart on approved payments only", () => {
    assert.equal(shownState("approved", 1000, 0), "approved");
    assert.equal(shownState("approved", 1000, 1), "partlyRefunded");
    assert.equal(shownState("approved", 1000, 999), "partlyRefunded");
    assert.equal(shownState("approved", 1000, 1000), "refunded");
    assert.equal(shownState("declined", 1000, 0), "declined");
    assert.equal(shownState("failed", 1000, 1000), "failed", "no money went back from a payment that took none");
  });
});

describe("a payment captured later, as the portal names it", () => {
  it("says where its authorisation stands until money is captured", () => {
    assert.equal(shownState("approved", 1000, 0, { state: "open", captured: 0 }), "authorisedNotCaptured");
    assert.equal(shownState("approved", 1000, 0, { state: "open", captured: 400 }), "partlyCaptured");
    assert.equal(shownState("approved", 1000, 1000, { state: "released", captured: 0 }), "cancelled", "a release is no refund");
    assert.equal(shownState("approved", 1000, 0, { state: "lapsed", captured: 0 }), "lapsed");
    assert.equal(shownState("approved", 1000, 0, { state: "captured", captured: 1000 }), "approved");
    assert.equal(
      shownState("approved", 1000, 1000, { state: "released", captured: 400 }),
      "refunded",
      "captured part refunded, rest released",
    );
  });
});
