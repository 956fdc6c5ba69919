// POST /api/v1/paymentlinks/update (docs/api.md#update): clients GET → change → POST; the
// rules bite only on what changes. Sales and expiry are set in the database directly, because the
// checkout page that makes sales is not part of these tests.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { testBackends } from "../support/databases.ts";
import {
  as,
  assertError,
  assertOk,
  future,
  getLink,
  ITEMS,
  past,
  payByLink,
  roundTrip,
  setSalesCount,
  setValidUntil,
  simplePayByLink,
  tokenizeByLink,
} from "../support/fixtures.ts";
import { type MerchantFixture, startTestServer, type TestServer } from "../support/harness.ts";
import { createLink } from "../support/shopper.ts";

const UPDATE = "/api/v1/paymentlinks/update";

for (const backend of testBackends()) {
  describe(`update payment link (${backend.name})`, () => {
    let server: TestServer;
    let other: MerchantFixture;
    let euroOnly: MerchantFixture;

    before(async () => {
      server = await startTestServer({ backend });
      other = await server.addMerchant();
      euroOnly = await server.addMerchant({ currencies: ["EUR"] });
    });
    after(() => server?.close());

    const update = (body: unknown, headers: Record<string, string> = {}) => server.api("POST", UPDATE, body, headers);
    const newLink = (overrides: Record<string, unknown> = {}) => createLink(server, payByLink(server, overrides));
    /** The link as GET shows it, minus submissions: what a client posts back. */
    const readBack = async (reference: string) => {
      const { submissions: _s, ...link } = await getLink(server, reference);
      return link;
    };

    describe("round trip", () => {
      it("accepts an unchanged GET result and changes nothing", async () => {
        const reference = await newLink({
          description: "unchanged",
          shopperInfo: [{ field: "Ssn", requirementType: "Prefilled", prefilledValue: "010130-3019" }],
        });
        const before = await getLink(server, reference);
        const response = await roundTrip(server, reference, () => {});
        assertOk(response);
        assert.deepEqual(
          Object.keys(response.body).sort(),
          ["responseDateTime", "responseIdentifier"],
          "update answers with the envelope only",
        );
        assert.deepEqual(await getLink(server, reference), before);
      });

      it("changes the optional fields of an Active link", async () => {
        const reference = await newLink();
        const validUntil = future(3);
        assertOk(
          await roundTrip(server, reference, (link) => {
            link.description = "Changed";
            link.culture = "en";
            link.themeKey = server.themeKey;
            link.returnUrl = "https://shop.example.com/done";
            link.validUntil = validUntil;
            link.maxSalesCount = 5;
            link.recurringProcessingModel = "CardOnFile";
            link.shopperInfo = [{ field: "EmailAddress", requirementType: "Required", prefilledValue: null }];
          }),
        );
        const link = await getLink(server, reference);
        assert.equal(link.description, "Changed");
        assert.equal(link.culture, "en");
        assert.equal(link.themeKey, server.themeKey);
        assert.equal(link.returnUrl, "https://shop.example.com/done");
        assert.equal(link.validUntil, validUntil);
        assert.equal(link.maxSalesCount, 5);
        assert.equal(link.recurringProcessingModel, "CardOnFile");
        assert.deepEqual(link.shopperInfo, [{ field: "EmailAddress", requirementType: "Required", prefilledValue: null }]);
        assert.equal(link.status, "Active");
      });

      it("changes amount, items and currency before the first sale", async () => {
        const reference = await newLink();
        const items = [{ name: "Vettlingar", quantity: 3, unitPrice: 2500, amountWithoutDiscount: 7500, amount: 7000 }];
        assertOk(await roundTrip(server, reference, (link) => Object.assign(link, { amount: 7000, currency: "EUR", items })));
        const link = await getLink(server, reference);
        assert.equal(link.amount, 7000);
        assert.equal(link.currency, "EUR");
        assert.deepEqual(link.items, items);
      });

      it("succeeds on a Disabled link and keeps it Disabled", async () => {
        const reference = await newLink();
        assertOk(await server.api("POST", "/api/v1/paymentlinks/disable", { paymentLinkReference: reference }));
        assertOk(await roundTrip(server, reference, (link) => (link.description = "edited while disabled")));
        const link = await getLink(server, reference);
        assert.equal(link.status, "Disabled");
        assert.equal(link.description, "edited while disabled");
      });

      it("succeeds on a sold link when the price is not touched", async () => {
        const reference = await newLink({ maxSalesCount: 1 });
        await setSalesCount(server, reference, 1);
        assert.equal((await getLink(server, reference)).status, "Used");
        assertOk(await roundTrip(server, reference, (link) => (link.description = "sold once")));
        const link = await getLink(server, reference);
        assert.equal(link.description, "sold once");
        assert.equal(link.salesCount, 1);
        assert.equal(link.status, "Used");
      });

      it("succeeds on an Expired link when validUntil is sent back unchanged", async () => {
        const reference = await newLink({ expiresAt: future() });
        await setValidUntil(server, reference, new Date(Date.now() - 60_000));
        assertOk(await roundTrip(server, reference, (link) => (link.description = "still expired")));
        assert.equal((await getLink(server, reference)).status, "Expired");
      });

      it("succeeds on an unused TokenizeByLink link", async () => {
        const reference = await createLink(server, tokenizeByLink(server));
        assertOk(await roundTrip(server, reference, (link) => (link.recurringProcessingModel = "Subscription")));
        const link = await getLink(server, reference);
        assert.equal(link.recurringProcessingModel, "Subscription");
        assert.equal(link.maxSalesCount, 1);
      });

      it("accepts a partial body: absent fields stay as they are", async () => {
        const reference = await newLink({ description: "before", culture: "en" });
        assertOk(await update({ paymentLinkReference: reference, description: "after" }));
        const link = await getLink(server, reference);
        assert.equal(link.description, "after");
        assert.equal(link.culture, "en");
        assert.deepEqual(link.items, ITEMS);
      });

      it("ignores server-managed fields whatever their value", async () => {
        const reference = await newLink();
        const before = await getLink(server, reference);
        assertOk(
          await roundTrip(server, reference, (link) => {
            link.url = "https://evil.example.com/pay/x";
            link.createdAt = "not even a date";
            link.visitCount = -5;
            link.salesCount = 999;
            link.submissions = [{ checkoutReference: "forged", completed: true }];
          }),
        );
        assert.deepEqual(await getLink(server, reference), before);
      });
    });

    describe("status", () => {
      it("re-enables a Disabled link (Disabled → Active)", async () => {
        const reference = await newLink();
        assertOk(await roundTrip(server, reference, (link) => (link.status = "Disabled")));
        assert.equal((await getLink(server, reference)).status, "Disabled");
        assertOk(await roundTrip(server, reference, (link) => (link.status = "Active")));
        assert.equal((await getLink(server, reference)).status, "Active");
      });

      it("reports a re-enabled link by the derivation: it may still be Expired", async () => {
        const reference = await newLink({ expiresAt: future() });
        assertOk(await server.api("POST", "/api/v1/paymentlinks/disable", { paymentLinkReference: reference }));
        await setValidUntil(server, reference, new Date(Date.now() - 60_000));
        assertOk(await roundTrip(server, reference, (link) => (link.status = "Active")));
        assert.equal((await getLink(server, reference)).status, "Expired");
      });

      for (const status of ["Expired", "Used", "Completed"]) {
        it(`refuses to set status ${status} (2003)`, async () => {
          const reference = await newLink();
          assertError(await update({ paymentLinkReference: reference, status }), 400, "2003", "status");
        });
      }
      it("refuses an unknown status (2003)", async () => {
        const reference = await newLink();
        assertError(await update({ paymentLinkReference: reference, status: "Nope" }), 400, "2003", "status");
      });
    });

    describe("maxSalesCount", () => {
      it("re-opens a Used link when raised", async () => {
        const reference = await newLink({ maxSalesCount: 1 });
        await setSalesCount(server, reference, 1);
        assert.equal((await getLink(server, reference)).status, "Used");
        assertOk(await roundTrip(server, reference, (link) => (link.maxSalesCount = 2)));
        const link = await getLink(server, reference);
        assert.equal(link.status, "Active");
        assert.equal(link.maxSalesCount, 2);
      });

      it("re-opens a Used link when removed (null = unlimited)", async () => {
        const reference = await newLink({ maxSalesCount: 2 });
        await setSalesCount(server, reference, 2);
        assertOk(await roundTrip(server, reference, (link) => (link.maxSalesCount = null)));
        const link = await getLink(server, reference);
        assert.equal(link.status, "Active");
        assert.equal(link.maxSalesCount, null);
      });

      it("refuses a maxSalesCount below salesCount (2002)", async () => {
        const reference = await newLink({ maxSalesCount: 5 });
        await setSalesCount(server, reference, 3);
        assertError(await roundTrip(server, reference, (link) => (link.maxSalesCount = 2)), 400, "2002", "maxSalesCount");
        assertOk(await roundTrip(server, reference, (link) => (link.maxSalesCount = 3)));
        assert.equal((await getLink(server, reference)).status, "Used");
      });

      it("refuses maxSalesCount 0 (2002)", async () => {
        const reference = await newLink();
        assertError(await update({ paymentLinkReference: reference, maxSalesCount: 0 }), 400, "2002", "maxSalesCount");
      });

      it("accepts the alias exactSalesCount and refuses both at once (2013)", async () => {
        const reference = await newLink();
        assertOk(await update({ paymentLinkReference: reference, exactSalesCount: 4 }));
        assert.equal((await getLink(server, reference)).maxSalesCount, 4);
        assertError(
          await update({ paymentLinkReference: reference, exactSalesCount: 6, maxSalesCount: 6 }),
          400,
          "2013",
          "exactSalesCount",
        );
      });

      it("keeps a TokenizeByLink single-use (2013)", async () => {
        const reference = await createLink(server, tokenizeByLink(server));
        assertError(await roundTrip(server, reference, (link) => (link.maxSalesCount = 2)), 400, "2013", "maxSalesCount");
        assertError(await roundTrip(server, reference, (link) => (link.maxSalesCount = null)), 400, "2013", "maxSalesCount");
      });
    });

    describe("validUntil", () => {
      it("removes the expiry with null", async () => {
        const reference = await newLink({ expiresAt: future() });
        assertOk(await roundTrip(server, reference, (link) => (link.validUntil = null)));
        assert.equal((await getLink(server, reference)).validUntil, null);
      });

      it("re-activates an expired link when extended", async () => {
        const reference = await newLink({ expiresAt: future() });
        await setValidUntil(server, reference, new Date(Date.now() - 3_600_000));
        assert.equal((await getLink(server, reference)).status, "Expired");
        const validUntil = future(7);
        assertOk(await roundTrip(server, reference, (link) => (link.validUntil = validUntil)));
        const link = await getLink(server, reference);
        assert.equal(link.status, "Active");
        assert.equal(link.validUntil, validUntil);
      });

      it("re-activates an expired link when the expiry is removed", async () => {
        const reference = await newLink({ expiresAt: future() });
        await setValidUntil(server, reference, new Date(Date.now() - 3_600_000));
        assertOk(await roundTrip(server, reference, (link) => (link.validUntil = null)));
        assert.equal((await getLink(server, reference)).status, "Active");
      });

      it("refuses a validUntil in the past (2005)", async () => {
        const reference = await newLink();
        assertError(await roundTrip(server, reference, (link) => (link.validUntil = past())), 400, "2005", "validUntil");
      });

      it("accepts the alias expiresAt and refuses both at once (2013)", async () => {
        const reference = await newLink();
        const expiresAt = future(2);
        assertOk(await update({ paymentLinkReference: reference, expiresAt }));
        assert.equal((await getLink(server, reference)).validUntil, expiresAt);
        assertError(
          await update({ paymentLinkReference: reference, expiresAt: future(4), validUntil: future(4) }),
          400,
          "2013",
          "expiresAt",
        );
        assertError(await update({ paymentLinkReference: reference, expiresAt: past() }), 400, "2005", "expiresAt");
      });

      it("refuses a validUntil that is not a date (2008)", async () => {
        const reference = await newLink();
        assertError(await update({ paymentLinkReference: reference, validUntil: "tomorrow" }), 400, "2008", "validUntil");
      });
    });

    describe("after a sale (3003)", () => {
      let sold: string;
      before(async () => {
        sold = await newLink();
        await setSalesCount(server, sold, 1);
      });

      it("refuses to change the amount (with matching items)", async () => {
        const items = [{ name: "Lopapeysa", quantity: 1, unitPrice: 50000, amountWithoutDiscount: 50000, amount: 50000 }];
        assertError(await roundTrip(server, sold, (link) => Object.assign(link, { amount: 50000, items })), 409, "3003", "sale");
      });
      it("refuses to change the items", async () => {
        const items = ITEMS.map((item, i) => (i === 0 ? { ...item, name: "Renamed" } : item));
        assertError(await roundTrip(server, sold, (link) => (link.items = items)), 409, "3003");
      });
      it("refuses to change the currency", async () => {
        assertError(await roundTrip(server, sold, (link) => (link.currency = "EUR")), 409, "3003");
      });
      it("still accepts the price sent back unchanged", async () => {
        assertOk(await roundTrip(server, sold, (link) => (link.culture = "en")));
      });

      it("refuses any change to a Completed tokenize link", async () => {
        const reference = await createLink(server, tokenizeByLink(server));
        await setSalesCount(server, reference, 1);
        const before = await getLink(server, reference);
        assert.equal(before.status, "Completed");
        assert.equal(before.salesCount, 1);
        assertError(await roundTrip(server, reference, (link) => (link.description = "too late")), 409, "3003", "Completed");
        assertError(await update({ paymentLinkReference: reference, status: "Disabled" }), 409, "3003");
        assert.deepEqual(await getLink(server, reference), before);
      });

      it("keeps a Completed tokenize link closed after it is disabled (status reads Disabled)", async () => {
        const reference = await createLink(server, tokenizeByLink(server));
        await setSalesCount(server, reference, 1);
        const disabled = await server.api("POST", "/api/v1/paymentlinks/disable", { paymentLinkReference: reference });
        assert.equal(disabled.status, 200);
        const before = await getLink(server, reference);
        assert.equal(before.status, "Disabled");
        assertError(
          await roundTrip(server, reference, (link) => {
            link.description = "reopened";
            link.returnUrl = "https://evil.example/";
            link.status = "Active";
          }),
          409,
          "3003",
          "Completed",
        );
        assert.deepEqual(await getLink(server, reference), before);
      });
    });

    describe("fields that cannot change (2013)", () => {
      it("refuses to change type, naming the field", async () => {
        const reference = await newLink();
        assertError(await roundTrip(server, reference, (link) => (link.type = "TokenizeByLink")), 400, "2013", "type");
      });
      it("refuses to change terminalIdentifier, naming the field", async () => {
        const reference = await newLink();
        const otherTerminal = euroOnly.terminalIdentifier;
        assertError(
          await roundTrip(server, reference, (link) => (link.terminalIdentifier = otherTerminal)),
          400,
          "2013",
          "terminalIdentifier",
        );
      });
    });

    describe("the create rules apply to changes", () => {
      let reference: string;
      before(async () => {
        reference = await newLink();
      });
      const change = (fields: Record<string, unknown>) => update({ paymentLinkReference: reference, ...fields });

      it("1000 invalid JSON", async () => assertError(await server.api("POST", UPDATE, `{"paymentLinkReference": "${"x"}"`), 400, "1000"));
      it("1005 wrong type", async () => {
        assertError(await change({ amount: "48900" }), 400, "1005", "amount");
        assertError(await change({ items: [{ ...ITEMS[0], quantity: "1" }] }), 400, "1005", "quantity");
        assertError(await update({ paymentLinkReference: 12345 }), 400, "1005", "paymentLinkReference");
      });
      it("1006 unknown field, top level and nested", async () => {
        assertError(await change({ colour: "red" }), 400, "1006", "colour");
        assertError(await change({ items: [{ ...ITEMS[0], sku: "A1" }] }), 400, "1006", "sku");
      });
      it("000 missing paymentLinkReference, item field, prefilledValue", async () => {
        assertError(await update({ description: "no reference" }), 400, "000", "paymentLinkReference");
        const { amount: _amount, ...noAmount } = ITEMS[0]!;
        assertError(await change({ items: [noAmount] }), 400, "000", "amount");
        assertError(await change({ shopperInfo: [{ field: "FullName", requirementType: "Prefilled" }] }), 400, "000", "prefilledValue");
      });
      it("2002 amount 0", async () => assertError(await change({ amount: 0, items: [] }), 400, "2002", "amount"));
      it("2003 unknown culture, requirementType, recurringProcessingModel", async () => {
        assertError(await change({ culture: "fr" }), 400, "2003", "culture");
        assertError(await change({ shopperInfo: [{ field: "City", requirementType: "Sometimes" }] }), 400, "2003", "requirementType");
        assertError(await change({ recurringProcessingModel: "Yearly" }), 400, "2003", "recurringProcessingModel");
      });
      it("2007 amount that no longer matches the items", async () => assertError(await change({ amount: 50000 }), 400, "2007"));
      it("2008 unknown currency and bad returnUrl", async () => {
        assertError(await change({ currency: "XYZ" }), 400, "2008", "XYZ");
        assertError(await change({ returnUrl: "http://example.com" }), 400, "2008", "returnUrl");
        assertError(await change({ returnUrl: "javascript:alert(1)" }), 400, "2008", "returnUrl");
      });
      it("2009 description of 501 characters, 201 items", async () => {
        assertError(await change({ description: "d".repeat(501) }), 400, "2009", "description");
        const items = Array.from({ length: 201 }, () => ({
          name: "x",
          quantity: 1,
          unitPrice: 100,
          amountWithoutDiscount: 100,
          amount: 100,
        }));
        assertError(await change({ amount: 20_100, items }), 400, "2009", "items");
      });
      it("2010 theme of another merchant or unknown", async () => {
        assertError(await change({ themeKey: other.themeKey }), 400, "2010", other.themeKey);
        assertError(await change({ themeKey: "thm_unknown" }), 400, "2010");
      });
      it("2011 currency the terminal does not accept", async () => {
        const euroLink = await createLink(server, simplePayByLink(euroOnly), as(euroOnly));
        assertError(await update({ paymentLinkReference: euroLink, currency: "USD" }, as(euroOnly)), 400, "2011", "USD");
      });
      it("2013 duplicate shopper field", async () =>
        assertError(
          await change({
            shopperInfo: [
              { field: "City", requirementType: "Required" },
              { field: "City", requirementType: "Hidden" },
            ],
          }),
          400,
          "2013",
        ));
      it("2017 wrong lengths", async () => {
        assertError(await change({ currency: "IS" }), 400, "2017", "currency");
        assertError(await change({ terminalIdentifier: "a".repeat(13) }), 400, "2017", "terminalIdentifier");
      });
      it("2019 amount too high", async () => assertError(await change({ amount: 100_000_000_100, items: [] }), 400, "2019", "amount"));
      it("2023 tokenize amount", async () => {
        const tokenize = await createLink(server, tokenizeByLink(server));
        assertError(await update({ paymentLinkReference: tokenize, amount: 100 }), 400, "2023", "amount");
      });
      it("2025 item amount above amountWithoutDiscount", async () => {
        const items = [{ name: "Peysa", quantity: 1, unitPrice: 40000, amountWithoutDiscount: 40000, amount: 48900 }];
        assertError(await change({ items }), 400, "2025");
      });
      it("2026 ISK amount not ending in 00", async () =>
        assertError(
          await change({
            amount: 48950,
            items: [{ name: "Peysa", quantity: 1, unitPrice: 48950, amountWithoutDiscount: 48950, amount: 48950 }],
          }),
          400,
          "2026",
        ));
      it("2014 unknown reference", async () =>
        assertError(await update({ paymentLinkReference: "doesNotExist123" }), 404, "2014", "doesNotExist123"));
      it("left the link as it was", async () => {
        const link = await getLink(server, reference);
        assert.equal(link.amount, 48900);
        assert.deepEqual(link.items, ITEMS);
        assert.equal(link.description, "");
        assert.equal(link.culture, "is");
        assert.equal(link.themeKey, null);
      });
    });

    it("is reported with the same envelope on success and on error", async () => {
      const reference = await newLink();
      const link = await readBack(reference);
      const ok = await update(link);
      assertOk(ok);
      const error = await update({ ...link, amount: "x" });
      assertError(error, 400, "1005");
      assert.notEqual(ok.body.responseIdentifier, error.body.responseIdentifier);
    });
  });
}
