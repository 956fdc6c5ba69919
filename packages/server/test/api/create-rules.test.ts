// POST /api/v1/paymentlinks/create: the rules of the link itself (error codes 2002–2026), each
// refused with its code and a message naming the field, through real HTTP on a real database, on
// every test backend. The request-level codes (JSON, types, unknown and missing fields, the key,
// size and media type) and what a valid link looks like are in create.test.ts.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { testBackends } from "../support/databases.ts";
import { as, assertError, assertOk, countLinks, future, past, payByLink, simplePayByLink, tokenizeByLink } from "../support/fixtures.ts";
import { type MerchantFixture, startTestServer, type TestServer } from "../support/harness.ts";

const CREATE = "/api/v1/paymentlinks/create";

for (const backend of testBackends()) {
  describe(`create payment link: the rules of the link (${backend.name})`, () => {
    let server: TestServer;
    /** A merchant that only ever sends bad requests: it must end with no links at all. */
    let rejected: MerchantFixture;
    /** Another merchant, whose terminal and theme the server's merchant must not use. */
    let other: MerchantFixture;
    /** A merchant whose only terminal accepts EUR. */
    let euroOnly: MerchantFixture;

    before(async () => {
      server = await startTestServer({ backend });
      rejected = await server.addMerchant();
      other = await server.addMerchant();
      euroOnly = await server.addMerchant({ currencies: ["EUR"] });
    });
    after(() => server?.close());

    const create = (body: unknown, headers: Record<string, string> = {}) => server.api("POST", CREATE, body, headers);
    /** Sends a bad create request as the `rejected` merchant and checks the error. */
    const reject = async (body: unknown, status: number, code: string, messageIncludes?: string | RegExp) =>
      assertError(await create(body, as(rejected)), status, code, messageIncludes);
    const bad = (overrides: Record<string, unknown>) => payByLink(rejected, overrides);

    describe("2002 must be greater", () => {
      it("rejects a PayByLink amount of 0 or below", async () => {
        await reject(bad({ amount: 0, items: [] }), 400, "2002", "amount");
        await reject(bad({ amount: -100, items: [] }), 400, "2002", "amount");
      });
      it("rejects an item quantity of 0 and negative prices", async () => {
        await reject(
          bad({ items: [{ name: "Peysa", quantity: 0, unitPrice: 48900, amountWithoutDiscount: 48900, amount: 48900 }] }),
          400,
          "2002",
          "quantity",
        );
        await reject(
          bad({ items: [{ name: "Peysa", quantity: 1, unitPrice: -1, amountWithoutDiscount: 48900, amount: 48900 }] }),
          400,
          "2002",
          "unitPrice",
        );
        await reject(
          bad({ items: [{ name: "Peysa", quantity: 1, unitPrice: 1, amountWithoutDiscount: -5, amount: 48900 }] }),
          400,
          "2002",
          "amountWithoutDiscount",
        );
      });
      it("rejects exactSalesCount 0", () => reject(bad({ exactSalesCount: 0 }), 400, "2002", "exactSalesCount"));
    });

    describe("2003 unknown value", () => {
      it("rejects an unknown type", () => reject(bad({ type: "PayByCheque" }), 400, "2003", "type"));
      it("rejects an unknown culture", () => reject(bad({ culture: "de" }), 400, "2003", "culture"));
      it("rejects an unknown shopper field", () =>
        reject(bad({ shopperInfo: [{ field: "ShoeSize", requirementType: "Required" }] }), 400, "2003", "field"));
      it("rejects an unknown requirementType", () =>
        reject(bad({ shopperInfo: [{ field: "City", requirementType: "Mandatory" }] }), 400, "2003", "requirementType"));
      it("rejects an unknown recurringProcessingModel", () =>
        reject(tokenizeByLink(rejected, { recurringProcessingModel: "Weekly" }), 400, "2003", "recurringProcessingModel"));
    });

    describe("2005 time in the past", () => {
      it("rejects a past expiresAt", () => reject(bad({ expiresAt: past() }), 400, "2005", "expiresAt"));
      it("rejects a past validUntil", () => reject(bad({ validUntil: past(400) }), 400, "2005", "validUntil"));
    });

    describe("2007 item amounts do not add up", () => {
      it("rejects items whose amounts differ from the link amount", () => reject(bad({ amount: 50000 }), 400, "2007", "50000"));
    });

    describe("2008 unsupported value", () => {
      it("rejects an unknown currency", () => reject(simplePayByLink(rejected, { currency: "XYZ" }), 400, "2008", "XYZ"));
      it("rejects a non-letter currency code", () => reject(simplePayByLink(rejected, { currency: "12$" }), 400, "2008"));
      for (const returnUrl of [
        "http://example.com/thanks",
        "javascript:alert(1)",
        "data:text/html,hi",
        "ftp://example.com/",
        "not a url",
        "/relative/path",
        // Hosts the URL parser lets through but a CSP header must never see (they would end form-action).
        "https://shop.example;img-src*/thanks",
        "https://a*b.example/",
        "https://shop$.example/",
        "https://under_score.example/",
      ]) {
        it(`rejects returnUrl ${returnUrl}`, () => reject(bad({ returnUrl }), 400, "2008", "returnUrl"));
      }
      for (const expiresAt of [
        "garbage",
        "2030-13-45T00:00:00Z",
        "31/12/2030",
        "0000-01-01T00:00:00Z",
        "2031-02-30T00:00:00Z",
        "2030-06-31T10:00:00Z",
        "2030-01-01T24:00:00Z",
        "2030-01-01T10:00:00+25:00",
      ]) {
        it(`rejects expiresAt ${expiresAt}`, () => reject(bad({ expiresAt }), 400, "2008", "expiresAt"));
      }
      it("rejects a prefilledValue that fails its field's validation", async () => {
        await reject(
          bad({ shopperInfo: [{ field: "EmailAddress", requirementType: "Prefilled", prefilledValue: "not-an-email" }] }),
          400,
          "2008",
          "prefilledValue",
        );
        await reject(
          bad({ shopperInfo: [{ field: "Ssn", requirementType: "Prefilled", prefilledValue: "12345" }] }),
          400,
          "2008",
          "prefilledValue",
        );
      });
      it("rejects text PostgreSQL cannot store (NUL, unpaired surrogates) instead of failing with 500", async () => {
        await reject(bad({ description: "a\u0000b" }), 400, "2008", "description");
        await reject(bad({ description: "half a pair: \ud83d" }), 400, "2008", "description");
        await reject(
          bad({ items: [{ name: "Peysa\u0000", quantity: 1, unitPrice: 48900, amountWithoutDiscount: 48900, amount: 48900 }] }),
          400,
          "2008",
          "name",
        );
        await reject(
          bad({ items: [{ name: "\udc00", quantity: 1, unitPrice: 48900, amountWithoutDiscount: 48900, amount: 48900 }] }),
          400,
          "2008",
          "name",
        );
        await reject(bad({ themeKey: "thm_\u0000" }), 400, "2008", "themeKey");
        await reject(bad({ terminalIdentifier: "abcdefabcde\u0000" }), 400, "2008", "terminalIdentifier");
        await reject(
          bad({ shopperInfo: [{ field: "FullName", requirementType: "Prefilled", prefilledValue: "Jón\u0000" }] }),
          400,
          "2008",
          "prefilledValue",
        );
      });
      it("accepts emoji and other well-formed unicode", async () => {
        assertOk(await create(payByLink(server, { description: "🧶 Lopapeysa, stærð M — 東京" })));
      });
    });

    describe("2009 too long or too many", () => {
      it("rejects 201 items", () => {
        const items = Array.from({ length: 201 }, (_, i) => ({
          name: `Item ${i}`,
          quantity: 1,
          unitPrice: 100,
          amountWithoutDiscount: 100,
          amount: 100,
        }));
        return reject(bad({ amount: 20_100, items }), 400, "2009", "items");
      });
      it("rejects a description of 501 characters", () => reject(bad({ description: "x".repeat(501) }), 400, "2009", "description"));
      it("rejects an item name of 201 characters", () =>
        reject(
          bad({ items: [{ name: "n".repeat(201), quantity: 1, unitPrice: 48900, amountWithoutDiscount: 48900, amount: 48900 }] }),
          400,
          "2009",
          "name",
        ));
      it("rejects more than 9 shopperInfo entries", () => {
        const fields = ["Ssn", "FullName", "Address", "PostCode", "City", "Country", "Telephone", "EmailAddress", "Comments", "City"];
        return reject(bad({ shopperInfo: fields.map((field) => ({ field, requirementType: "Optional" })) }), 400, "2009", "shopperInfo");
      });
    });

    describe("2010 theme not found", () => {
      it("rejects the theme of another merchant", () => reject(bad({ themeKey: other.themeKey }), 400, "2010", other.themeKey));
      it("rejects an unknown theme", () => reject(bad({ themeKey: "thm_doesnotexist" }), 400, "2010", "thm_doesnotexist"));
    });

    describe("2011 currency not accepted by the terminal", () => {
      it("rejects ISK on a terminal that accepts only EUR", async () =>
        assertError(await create(payByLink(euroOnly), as(euroOnly)), 400, "2011", "ISK"));
    });

    describe("2013 fields that cannot be used together", () => {
      it("rejects expiresAt and validUntil together", () =>
        reject(bad({ expiresAt: future(), validUntil: future() }), 400, "2013", "validUntil"));
      it("rejects exactSalesCount and maxSalesCount together", () =>
        reject(bad({ exactSalesCount: 2, maxSalesCount: 2 }), 400, "2013", "maxSalesCount"));
      it("rejects items on a TokenizeByLink", () =>
        reject(
          tokenizeByLink(rejected, { items: [{ name: "x", quantity: 1, unitPrice: 0, amountWithoutDiscount: 0, amount: 0 }] }),
          400,
          "2013",
          "items",
        ));
      it("rejects a TokenizeByLink with exactSalesCount other than 1", () =>
        reject(tokenizeByLink(rejected, { exactSalesCount: 2 }), 400, "2013"));
      it("rejects a shopper field listed twice", () =>
        reject(
          bad({
            shopperInfo: [
              { field: "City", requirementType: "Required" },
              { field: "City", requirementType: "Optional" },
            ],
          }),
          400,
          "2013",
          "City",
        ));
      it("rejects a prefilledValue on a field that is not Prefilled", () =>
        reject(
          bad({ shopperInfo: [{ field: "City", requirementType: "Required", prefilledValue: "Reykjavík" }] }),
          400,
          "2013",
          "prefilledValue",
        ));
    });

    describe("2016 terminal not found", () => {
      it("rejects the terminal of another merchant", () => reject(payByLink(other), 400, "2016", other.terminalIdentifier));
      it("rejects an unknown terminal", () => reject(bad({ terminalIdentifier: "000000000000" }), 400, "2016", "000000000000"));
    });

    describe("2017 wrong exact length", () => {
      it("rejects an 11-character terminalIdentifier", () =>
        reject(bad({ terminalIdentifier: "a".repeat(11) }), 400, "2017", "terminalIdentifier"));
      it("rejects a 13-character terminalIdentifier", () =>
        reject(bad({ terminalIdentifier: "a".repeat(13) }), 400, "2017", "terminalIdentifier"));
      it("rejects a 2-character currency", () => reject(simplePayByLink(rejected, { currency: "EU" }), 400, "2017", "currency"));
      it("rejects a 4-character currency", () => reject(simplePayByLink(rejected, { currency: "EURO" }), 400, "2017", "currency"));
    });

    describe("2019 amount too high", () => {
      it("rejects an amount of 10^11 + 100", () => reject(simplePayByLink(rejected, { amount: 100_000_000_100 }), 400, "2019", "amount"));
      it("rejects an item amount above 10^11", () =>
        reject(
          bad({ items: [{ name: "Peysa", quantity: 1, unitPrice: 1, amountWithoutDiscount: 100_000_000_100, amount: 48900 }] }),
          400,
          "2019",
          "amountWithoutDiscount",
        ));
      it("rejects an amount beyond the safe-integer range", () =>
        reject(simplePayByLink(rejected, { amount: 1e300 }), 400, "2019", "amount"));
      it("gives a quantity over its cap 2009 (too many), not the amount code", () =>
        reject(
          bad({ items: [{ name: "Peysa", quantity: 1_000_001, unitPrice: 0, amountWithoutDiscount: 0, amount: 0 }] }),
          400,
          "2009",
          "quantity",
        ));
    });

    describe("2023 tokenization amount must be 0", () => {
      it("rejects a TokenizeByLink with an amount", () => reject(tokenizeByLink(rejected, { amount: 100 }), 400, "2023", "amount"));
    });

    describe("2025 item amount above amountWithoutDiscount", () => {
      it("rejects a discounted amount higher than the undiscounted one", () =>
        reject(
          bad({ amount: 48900, items: [{ name: "Peysa", quantity: 1, unitPrice: 40000, amountWithoutDiscount: 40000, amount: 48900 }] }),
          400,
          "2025",
          "items[0]",
        ));
    });

    describe("2026 ISK amount must end in 00", () => {
      it("rejects ISK 48950", () => reject(simplePayByLink(rejected, { amount: 48950, currency: "ISK" }), 400, "2026", "48950"));
      it("accepts 48950 in EUR", async () => assertOk(await create(simplePayByLink(server, { amount: 48950, currency: "EUR" }))));
    });

    it("created nothing for the merchant whose requests were all refused", async () => {
      assert.equal(await countLinks(server, rejected.merchantId), 0);
    });
  });
}
