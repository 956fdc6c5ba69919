// An error about one field names it (AppError.field), so a form can show it beside that field
// without reading the message; the wire envelope stays without it (docs/api.md#errors).
import assert from "node:assert/strict";
import { test } from "node:test";
import { checkedCreateRequest } from "../../src/api/link-requests.ts";
import { AppError } from "../../src/domain/errors.ts";
import { termsFromCreateRequest } from "../../src/domain/links/create.ts";
import { applyUpdate } from "../../src/domain/links/update.ts";

const now = new Date("2026-06-01T12:00:00Z");
const item = { name: "Bók", quantity: 1, unitPrice: 3000, amountWithoutDiscount: 3000, amount: 3000 };
const base = { type: "PayByLink" as const, terminalIdentifier: "aaaaaaaaaaaa", amount: 3000, currency: "ISK", items: [item] };

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    return error.field;
  }
  assert.fail("expected an AppError");
}

test("the link rules name the field they refuse", () => {
  const create = (change: object) => () => termsFromCreateRequest({ ...base, ...change }, now);
  assert.equal(fieldOf(create({ amount: 3050, items: [] })), "amount");
  assert.equal(fieldOf(create({ currency: "XXQ" })), "currency");
  assert.equal(fieldOf(create({ items: [item, { ...item, amount: 4000 }], amount: 7000 })), "items[1].amount");
  assert.equal(fieldOf(create({ validUntil: "2001-01-01T00:00:00Z" })), "validUntil");
  assert.equal(fieldOf(create({ returnUrl: "http://shop.example/thanks" })), "returnUrl");
  const prefill = [{ field: "EmailAddress", requirementType: "Prefilled", prefilledValue: "" }];
  assert.equal(fieldOf(create({ shopperInfo: prefill })), "shopperInfo[0].prefilledValue");
  assert.equal(fieldOf(create({ exactSalesCount: 1, maxSalesCount: 1 })), "exactSalesCount");

  const link = { terms: termsFromCreateRequest(base, now), disabled: false, salesCount: 3 };
  assert.equal(
    fieldOf(() => applyUpdate(link, { paymentLinkReference: "r", maxSalesCount: 2 }, now)),
    "maxSalesCount",
  );
  assert.equal(
    fieldOf(() => applyUpdate(link, { paymentLinkReference: "r", amount: 5000 }, now)),
    "amount",
  );
});

test("the request schema names the field it refuses; a rule about the whole request names none", () => {
  assert.equal(
    fieldOf(() => checkedCreateRequest({ ...base, description: "x".repeat(5000) })),
    "description",
  );
  assert.equal(
    fieldOf(() => checkedCreateRequest({ ...base, items: [{ ...item, quantity: "one" }] })),
    "items[0].quantity",
  );
  assert.equal(
    fieldOf(() => checkedCreateRequest({ ...base, colour: "red" })),
    "colour",
  );
  const { currency: _, ...noCurrency } = base;
  assert.equal(
    fieldOf(() => checkedCreateRequest(noCurrency)),
    "currency",
  );
  assert.equal(
    fieldOf(() => checkedCreateRequest(null)),
    undefined,
  );
});
