import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { linkStatusSql, openForSaleSql, SALE_CAP } from "../../src/db/link-status.ts";
import { deriveStatus, isOpenForSale } from "../../src/domain/links/status.ts";
import type { LinkState, LinkType } from "../../src/domain/links/types.ts";
import { decidePayment } from "../../src/domain/payments/payment-outcome.ts";
import { type TestDatabase, testBackends } from "../support/databases.ts";
import { addMerchantFixture } from "../support/harness.ts";

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

test("an approval becomes the sale only while the link is open; else it is voided, saying why", () => {
  const approved = { kind: "approved" as const, payfacReference: "P", authCode: "1", token: null, cardBrand: "VI", cardUsage: "Debit" };
  const link = (change: Partial<LinkState>) => {
    const state = { ...base, ...change };
    return { terms: state, disabled: state.disabled, salesCount: state.salesCount };
  };
  const decide = (change: Partial<LinkState>, attempt: "pending" | "abandoned" = "pending") => {
    const { recorded, voidReason, holdsSlot } = decidePayment(approved, attempt, link(change), now);
    return [recorded, voidReason, holdsSlot];
  };
  assert.deepEqual(decide({}), ["approved", null, true]);
  assert.deepEqual(decide({ disabled: true }), ["voided", "Link disabled", true]);
  assert.deepEqual(decide({ validUntil: past }), ["voided", "Link expired", true]);
  assert.deepEqual(decide({ maxSalesCount: 2, salesCount: 2 }), ["voided", "Sold out", true]);
  assert.deepEqual(decide({ type: "TokenizeByLink", salesCount: 1 }), ["voided", "Sold out", true]);
  assert.deepEqual(decide({}, "abandoned"), ["voided", "Reversed", false]);
  const declined = { kind: "declined" as const, payfacReference: "P", reason: "Refused", cardBrand: "VI", cardUsage: "Debit" };
  assert.equal(decidePayment(declined, "pending", link({ disabled: true }), now).recorded, "declined", "a decline needs no open link");
});

/**
 * Every combination of what the status is derived from: type, disabled, validUntil, maxSalesCount,
 * salesCount (a tokenize link saves one card at most: the table refuses more).
 */
function everyLink(): Array<LinkState & { reference: string }> {
  const links: Array<LinkState & { reference: string }> = [];
  for (const type of ["PayByLink", "TokenizeByLink"] as LinkType[])
    for (const disabled of [false, true])
      for (const validUntil of [null, past, now, future])
        for (const maxSalesCount of type === "TokenizeByLink" ? [null, 1] : [null, 2])
          for (const salesCount of type === "TokenizeByLink" ? [0, 1] : [0, 1, 2])
            links.push({ reference: `status-${links.length}`, type, disabled, validUntil, maxSalesCount, salesCount });
  return links;
}

for (const backend of testBackends()) {
  describe(`the status rule in SQL agrees with the TypeScript on every combination (${backend.name})`, () => {
    let database: TestDatabase;
    before(async () => {
      database = await backend.open();
    });
    after(() => database.destroy());

    test("status, open for sale and the sale cap", async () => {
      const merchant = await addMerchantFixture(database.db);
      const links = everyLink();
      for (const link of links) {
        await sql`
          INSERT INTO payment_links (reference, merchant_id, terminal_identifier, type, amount, currency, items, shopper_info, culture,
                                     description, disabled, valid_until, max_sales_count, sales_count)
          VALUES (${link.reference}, ${merchant.merchantId}, ${merchant.terminalIdentifier}, ${link.type}, 4900, 'ISK', '[]', '{}',
                  'is-IS', 'Status', ${link.disabled}, ${link.validUntil}, ${link.maxSalesCount}, ${link.salesCount})`.execute(database.db);
      }
      const rows = await database.db
        .selectFrom("payment_links")
        .select([
          "reference",
          linkStatusSql(now).as("status"),
          openForSaleSql(now).as("open"),
          sql<boolean>`sales_count < ${SALE_CAP}`.as("under_cap"),
        ])
        .where("reference", "like", "status-%")
        .execute();
      const found = new Map(rows.map((row) => [row.reference, row]));
      const statuses = new Set<string>();
      for (const link of links) {
        const row = found.get(link.reference);
        const status = deriveStatus(link, now);
        statuses.add(status);
        const stored = { terms: link, disabled: link.disabled, salesCount: link.salesCount };
        assert.equal(row?.status, status, JSON.stringify(link));
        assert.equal(row?.open, isOpenForSale(stored, now), JSON.stringify(link));
        // The cap is what Completed and Used are reached at, whatever else holds.
        const capReached = deriveStatus({ ...link, disabled: false, validUntil: null }, now) !== "Active";
        assert.equal(row?.under_cap, !capReached, JSON.stringify(link));
      }
      assert.deepEqual([...statuses].sort(), ["Active", "Completed", "Disabled", "Expired", "Used"]);
    });
  });
}
