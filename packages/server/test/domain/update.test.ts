import assert from "node:assert/strict";
import { test } from "node:test";
import { AppError } from "../../src/domain/errors.ts";
import { termsFromCreateRequest } from "../../src/domain/links/create.ts";
import { applyUpdate, type StoredLink } from "../../src/domain/links/update.ts";

const now = new Date("2026-06-01T12:00:00Z");
const item = { name: "Bók", quantity: 2, unitPrice: 1500, amountWithoutDiscount: 3000, amount: 3000 };

function stored(change: Partial<StoredLink> = {}): StoredLink {
  const terms = termsFromCreateRequest(
    { type: "PayByLink", terminalIdentifier: "aaaaaaaaaaaa", amount: 3000, currency: "EUR", items: [item] },
    now,
  );
  return { terms, disabled: false, salesCount: 0, ...change };
}

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    return error.code;
  }
  assert.fail("expected an AppError");
}

test("a round trip of the unchanged object is accepted in every state", () => {
  const link = stored({ salesCount: 2 });
  const echoed = { paymentLinkReference: "r", ...link.terms, validUntil: null, status: "Active" as const };
  const change = applyUpdate(link, echoed, now);
  assert.deepEqual(change.terms, link.terms);
});

test("price changes are refused after a sale and checked before", () => {
  assert.equal(
    code(() => applyUpdate(stored({ salesCount: 1 }), { paymentLinkReference: "r", amount: 4000, items: [] }, now)),
    "3003",
  );
  assert.equal(
    code(() => applyUpdate(stored(), { paymentLinkReference: "r", amount: 4000 }, now)),
    "2007",
  );
  const change = applyUpdate(stored(), { paymentLinkReference: "r", amount: 4000, items: [] }, now);
  assert.equal(change.terms.amount, 4000);
});

test("status, caps, expiry and immutable fields", () => {
  assert.equal(applyUpdate(stored(), { paymentLinkReference: "r", status: "Disabled" }, now).disabled, true);
  assert.equal(applyUpdate(stored({ disabled: true }), { paymentLinkReference: "r", status: "Active" }, now).disabled, false);
  assert.equal(
    code(() => applyUpdate(stored(), { paymentLinkReference: "r", status: "Used" }, now)),
    "2003",
  );
  assert.equal(
    code(() => applyUpdate(stored({ salesCount: 3 }), { paymentLinkReference: "r", maxSalesCount: 2 }, now)),
    "2002",
  );
  assert.equal(applyUpdate(stored({ salesCount: 3 }), { paymentLinkReference: "r", maxSalesCount: 3 }, now).terms.maxSalesCount, 3);
  assert.equal(
    code(() => applyUpdate(stored(), { paymentLinkReference: "r", validUntil: "2026-05-01T00:00:00Z" }, now)),
    "2005",
  );
  assert.equal(
    code(() => applyUpdate(stored(), { paymentLinkReference: "r", type: "TokenizeByLink" }, now)),
    "2013",
  );
  assert.equal(
    code(() => applyUpdate(stored(), { paymentLinkReference: "r", terminalIdentifier: "bbbbbbbbbbbb" }, now)),
    "2013",
  );
});

test("a Completed tokenize link cannot change", () => {
  const terms = termsFromCreateRequest({ type: "TokenizeByLink", terminalIdentifier: "aaaaaaaaaaaa", amount: 0, currency: "EUR" }, now);
  assert.equal(terms.recurringProcessingModel, "CardOnFile");
  assert.equal(terms.maxSalesCount, 1);
  assert.equal(
    code(() => applyUpdate({ terms, disabled: false, salesCount: 1 }, { paymentLinkReference: "r", description: "x" }, now)),
    "3003",
  );
});
