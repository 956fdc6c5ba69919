import assert from "node:assert/strict";
import { test } from "node:test";
import { deriveStatus } from "../../src/domain/links/status.ts";
import type { LinkState } from "../../src/domain/links/types.ts";

const now = new Date("2026-06-01T12:00:00Z");
const past = new Date("2026-06-01T11:59:59Z");
const future = new Date("2026-06-01T12:00:01Z");
const base: LinkState = { type: "PayByLink", disabled: false, salesCount: 0, maxSalesCount: null, validUntil: null };

test("derivation order of docs/api.md#status: Disabled, Completed, Used, Expired, Active", () => {
  const cases: Array<[Partial<LinkState>, string]> = [
    [{}, "Active"],
    [{ validUntil: future }, "Active"],
    [{ validUntil: past }, "Expired"],
    [{ validUntil: now }, "Expired"],
    [{ maxSalesCount: 3, salesCount: 2 }, "Active"],
    [{ maxSalesCount: 3, salesCount: 3 }, "Used"],
    [{ maxSalesCount: 3, salesCount: 3, validUntil: past }, "Used"],
    [{ maxSalesCount: 3, salesCount: 3, disabled: true }, "Disabled"],
    [{ disabled: true, validUntil: past }, "Disabled"],
    [{ salesCount: 100 }, "Active"],
    [{ type: "TokenizeByLink", maxSalesCount: 1 }, "Active"],
    [{ type: "TokenizeByLink", maxSalesCount: 1, salesCount: 1 }, "Completed"],
    [{ type: "TokenizeByLink", maxSalesCount: 1, salesCount: 1, validUntil: past }, "Completed"],
    [{ type: "TokenizeByLink", maxSalesCount: 1, salesCount: 1, disabled: true }, "Disabled"],
    [{ type: "TokenizeByLink", maxSalesCount: 1, validUntil: past }, "Expired"],
  ];
  for (const [change, expected] of cases) {
    assert.equal(deriveStatus({ ...base, ...change }, now), expected, JSON.stringify(change));
  }
});
