// POST /api/v1/paymentlinks/create: what a valid link looks like, and the request-level error
// codes (JSON, types, unknown and missing fields, the key, size and media type), through real
// HTTP on a real database, on every test backend. The rules of the link itself (codes
// 2002–2026) are in create-rules.test.ts.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createApiKey, revokeApiKey } from "../../src/db/merchants-repository.ts";
import { testBackends } from "../support/databases.ts";
import {
  as,
  assertError,
  assertOk,
  countLinks,
  future,
  getLink,
  ISO_UTC,
  ITEMS,
  payByLink,
  rawRequest,
  simplePayByLink,
  tokenizeByLink,
} from "../support/fixtures.ts";
import { type MerchantFixture, startTestServer, type TestServer } from "../support/harness.ts";

const CREATE = "/api/v1/paymentlinks/create";
const PAYMENT_LINK_KEYS = [
  "amount",
  "createdAt",
  "culture",
  "currency",
  "description",
  "items",
  "maxSalesCount",
  "paymentLinkReference",
  "recurringProcessingModel",
  "returnUrl",
  "salesCount",
  "shopperInfo",
  "status",
  "submissions",
  "terminalIdentifier",
  "themeKey",
  "type",
  "url",
  "validUntil",
  "visitCount",
];

for (const backend of testBackends()) {
  describe(`create payment link (${backend.name})`, () => {
    let server: TestServer;
    /** A merchant that only ever sends bad requests: it must end with no links at all. */
    let rejected: MerchantFixture;
    /** A merchant whose only terminal accepts EUR. */
    let euroOnly: MerchantFixture;

    before(async () => {
      server = await startTestServer({ backend });
      rejected = await server.addMerchant();
      euroOnly = await server.addMerchant({ currencies: ["EUR"] });
    });
    after(() => server?.close());

    const create = (body: unknown, headers: Record<string, string> = {}) => server.api("POST", CREATE, body, headers);
    /** Sends a bad create request as the `rejected` merchant and checks the error. */
    const reject = async (body: unknown, status: number, code: string, messageIncludes?: string | RegExp) =>
      assertError(await create(body, as(rejected)), status, code, messageIncludes);
    /** Where rawRequest should go, and with which key, to act as the `rejected` merchant. */
    const asRejected = () => ({ baseUrl: server.baseUrl, apiKey: rejected.apiKey });
    const bad = (overrides: Record<string, unknown>) => payByLink(rejected, overrides);
    const without = (field: string, body: Record<string, unknown> = bad({})) => {
      const copy = { ...body };
      delete copy[field];
      return copy;
    };

    describe("success", () => {
      it("creates a PayByLink link with items and reads it back with every field", async () => {
        const response = await create(payByLink(server));
        assertOk(response);
        assert.deepEqual(Object.keys(response.body).sort(), ["paymentLinkReference", "responseDateTime", "responseIdentifier", "url"]);
        const reference = response.body.paymentLinkReference;
        assert.match(reference, /^[A-Za-z0-9_-]{10,20}$/, "URL-safe, 10–20 characters");
        assert.equal(response.body.url, `${server.baseUrl}/pay/${reference}`);

        const link = await getLink(server, reference);
        assert.deepEqual(Object.keys(link).sort(), PAYMENT_LINK_KEYS);
        assert.equal(link.paymentLinkReference, reference);
        assert.equal(link.terminalIdentifier, server.terminalIdentifier);
        assert.equal(link.type, "PayByLink");
        assert.equal(link.status, "Active");
        assert.equal(link.amount, 48900);
        assert.equal(link.currency, "ISK");
        assert.deepEqual(link.items, ITEMS);
        assert.equal(link.culture, "is", "culture defaults to is");
        assert.equal(link.themeKey, null);
        assert.equal(link.description, "");
        assert.equal(link.returnUrl, null);
        assert.equal(link.validUntil, null);
        assert.equal(link.recurringProcessingModel, null);
        assert.equal(link.maxSalesCount, null);
        assert.equal(link.visitCount, 0);
        assert.equal(link.salesCount, 0);
        assert.deepEqual(link.shopperInfo, []);
        assert.deepEqual(link.submissions, []);
        assert.equal(link.url, response.body.url);
        assert.match(link.createdAt, ISO_UTC);
        assert.ok(Math.abs(Date.parse(link.createdAt) - Date.now()) < 60_000);
      });

      it("gives every link its own reference and every response its own identifier", async () => {
        const responses = await Promise.all(Array.from({ length: 6 }, () => create(simplePayByLink(server))));
        responses.forEach(assertOk);
        assert.equal(new Set(responses.map((r) => r.body.paymentLinkReference)).size, 6);
        assert.equal(new Set(responses.map((r) => r.body.responseIdentifier)).size, 6);
      });

      it("creates a PayByLink link with an empty cart", async () => {
        const response = await create(simplePayByLink(server));
        assertOk(response);
        const link = await getLink(server, response.body.paymentLinkReference);
        assert.deepEqual(link.items, []);
        assert.equal(link.amount, 1250);
        assert.equal(link.currency, "EUR");
      });

      it("creates a TokenizeByLink link: CardOnFile by default, single-use, no items", async () => {
        const response = await create(tokenizeByLink(server));
        assertOk(response);
        const link = await getLink(server, response.body.paymentLinkReference);
        assert.equal(link.type, "TokenizeByLink");
        assert.equal(link.amount, 0);
        assert.equal(link.recurringProcessingModel, "CardOnFile");
        assert.equal(link.maxSalesCount, 1);
        assert.equal(link.salesCount, 0);
        assert.deepEqual(link.items, []);
        assert.equal(link.status, "Active");
      });

      it("accepts a TokenizeByLink with a recurringProcessingModel, empty items and exactSalesCount 1", async () => {
        const response = await create(tokenizeByLink(server, { recurringProcessingModel: "Subscription", items: [], exactSalesCount: 1 }));
        assertOk(response);
        const link = await getLink(server, response.body.paymentLinkReference);
        assert.equal(link.recurringProcessingModel, "Subscription");
        assert.equal(link.maxSalesCount, 1);
      });

      it("keeps a recurringProcessingModel on a PayByLink (pay and save the card)", async () => {
        const response = await create(payByLink(server, { recurringProcessingModel: "UnscheduledCardOnFile" }));
        assertOk(response);
        assert.equal((await getLink(server, response.body.paymentLinkReference)).recurringProcessingModel, "UnscheduledCardOnFile");
      });

      it("stores all seven optional fields", async () => {
        const expiresAt = future(10);
        const response = await create(
          payByLink(server, {
            culture: "en",
            themeKey: server.themeKey,
            expiresAt,
            description: "Order 1001 — þökk fyrir",
            returnUrl: "https://shop.example.com/thanks?order=1001",
            exactSalesCount: 3,
            shopperInfo: [
              { field: "EmailAddress", requirementType: "Required" },
              { field: "FullName", requirementType: "Optional", prefilledValue: null },
              { field: "Comments", requirementType: "Hidden" },
              { field: "Ssn", requirementType: "Prefilled", prefilledValue: "010130-3019" },
              { field: "Telephone", requirementType: "Prefilled", prefilledValue: "+354 555 1234" },
            ],
          }),
        );
        assertOk(response);
        const link = await getLink(server, response.body.paymentLinkReference);
        assert.equal(link.culture, "en");
        assert.equal(link.themeKey, server.themeKey);
        assert.equal(link.validUntil, expiresAt);
        assert.equal(link.description, "Order 1001 — þökk fyrir");
        assert.equal(link.returnUrl, "https://shop.example.com/thanks?order=1001");
        assert.equal(link.maxSalesCount, 3);
        assert.deepEqual(link.shopperInfo, [
          { field: "EmailAddress", requirementType: "Required", prefilledValue: null },
          { field: "FullName", requirementType: "Optional", prefilledValue: null },
          { field: "Comments", requirementType: "Hidden", prefilledValue: null },
          { field: "Ssn", requirementType: "Prefilled", prefilledValue: "010130-3019" },
          { field: "Telephone", requirementType: "Prefilled", prefilledValue: "+354 555 1234" },
        ]);
        assert.equal(link.status, "Active");
      });

      it("accepts the aliases validUntil and maxSalesCount", async () => {
        const validUntil = future(5);
        const response = await create(payByLink(server, { validUntil, maxSalesCount: 7 }));
        assertOk(response);
        const link = await getLink(server, response.body.paymentLinkReference);
        assert.equal(link.validUntil, validUntil);
        assert.equal(link.maxSalesCount, 7);
      });

      it("accepts an expiry with a time-zone offset and shows it in UTC", async () => {
        const year = new Date().getUTCFullYear() + 2;
        const response = await create(payByLink(server, { expiresAt: `${year}-06-01T12:00:00+02:00` }));
        assertOk(response);
        assert.equal((await getLink(server, response.body.paymentLinkReference)).validUntil, `${year}-06-01T10:00:00.000Z`);
      });

      it("accepts null for every optional field and applies the defaults", async () => {
        const response = await create(
          payByLink(server, {
            recurringProcessingModel: null,
            culture: null,
            themeKey: null,
            expiresAt: null,
            description: null,
            returnUrl: null,
            exactSalesCount: null,
            shopperInfo: null,
          }),
        );
        assertOk(response);
        const link = await getLink(server, response.body.paymentLinkReference);
        assert.equal(link.culture, "is");
        assert.equal(link.themeKey, null);
        assert.equal(link.validUntil, null);
        assert.equal(link.description, "");
        assert.equal(link.maxSalesCount, null);
        assert.deepEqual(link.shopperInfo, []);
      });

      it("accepts http:// return URLs for localhost and 127.0.0.1 only", async () => {
        for (const returnUrl of ["http://localhost:3000/done", "http://127.0.0.1:8080/done"]) {
          assertOk(await create(payByLink(server, { returnUrl })));
        }
      });

      it("upper-cases a lower-case currency code", async () => {
        const response = await create(simplePayByLink(server, { currency: "eur" }));
        assertOk(response);
        assert.equal((await getLink(server, response.body.paymentLinkReference)).currency, "EUR");
      });

      it("accepts the maximum amount of 10^11 and 200 items", async () => {
        assertOk(await create(simplePayByLink(server, { amount: 100_000_000_000 })));
        const items = Array.from({ length: 200 }, (_, i) => ({
          name: `Item ${i}`,
          quantity: 1,
          unitPrice: 100,
          amountWithoutDiscount: 100,
          amount: 100,
        }));
        assertOk(await create(payByLink(server, { amount: 20_000, items })));
      });

      it("accepts a description of exactly 500 characters", async () => {
        assertOk(await create(payByLink(server, { description: "x".repeat(500) })));
      });

      it("accepts a currency the terminal lists", async () => {
        assertOk(await create(simplePayByLink(euroOnly), as(euroOnly)));
      });
    });

    describe("1000 body is not valid JSON", () => {
      it("rejects malformed JSON", async () => {
        assertError(
          await rawRequest(asRejected(), "POST", CREATE, { body: '{"type": "PayByLink",', contentType: "application/json" }),
          400,
          "1000",
        );
        assertError(await rawRequest(asRejected(), "POST", CREATE, { body: "{'type': 1}", contentType: "application/json" }), 400, "1000");
      });
      it("rejects an empty body, with and without a content type", async () => {
        assertError(await rawRequest(asRejected(), "POST", CREATE, { body: "", contentType: "application/json" }), 400, "1000");
        assertError(await rawRequest(asRejected(), "POST", CREATE, {}), 400, "1000");
      });
      it("rejects a JSON null body", async () => {
        assertError(await rawRequest(asRejected(), "POST", CREATE, { body: "null", contentType: "application/json" }), 400, "1000");
      });
    });

    describe("1005 wrong JSON type", () => {
      it("rejects an amount sent as a string", () => reject(bad({ amount: "48900" }), 400, "1005", "amount"));
      it("rejects a fractional amount", () => reject(bad({ amount: 489.5 }), 400, "1005", "amount"));
      it("rejects a non-object body", async () => {
        await reject([], 400, "1005");
        await reject(JSON.stringify("PayByLink"), 400, "1005"); // the harness sends strings as they are
        await reject(42, 400, "1005");
      });
      it("rejects wrong types at the top level", async () => {
        await reject(bad({ type: 1 }), 400, "1005", "type");
        await reject(bad({ currency: ["ISK"] }), 400, "1005", "currency");
        await reject(bad({ items: {} }), 400, "1005", "items");
        await reject(bad({ description: 5 }), 400, "1005", "description");
        await reject(bad({ exactSalesCount: "3" }), 400, "1005", "exactSalesCount");
        await reject(bad({ shopperInfo: "EmailAddress" }), 400, "1005", "shopperInfo");
        await reject(bad({ terminalIdentifier: 123456789012 }), 400, "1005", "terminalIdentifier");
      });
      it("rejects wrong types inside items and shopperInfo", async () => {
        const item = { ...ITEMS[0]!, amount: 48900, amountWithoutDiscount: 48900, unitPrice: 48900 };
        await reject(bad({ items: [{ ...item, quantity: "1" }] }), 400, "1005", "items[0].quantity");
        await reject(bad({ items: [{ ...item, quantity: 1.5 }] }), 400, "1005", "items[0].quantity");
        await reject(bad({ items: [{ ...item, name: 7 }] }), 400, "1005", "items[0].name");
        await reject(bad({ items: [{ ...item, amount: null }] }), 400, "1005", "items[0].amount");
        await reject(bad({ items: ["Lopapeysa"] }), 400, "1005", "items[0]");
        await reject(
          bad({ shopperInfo: [{ field: "EmailAddress", requirementType: "Prefilled", prefilledValue: 5 }] }),
          400,
          "1005",
          "prefilledValue",
        );
        await reject(bad({ shopperInfo: [["EmailAddress", "Required"]] }), 400, "1005", "shopperInfo[0]");
      });
    });

    describe("1006 unknown field", () => {
      it("rejects an unknown top-level field", () => reject(bad({ colour: "red" }), 400, "1006", "colour"));
      it("rejects an unknown item field", () =>
        reject(
          bad({ items: [{ ...ITEMS[0]!, amount: 48900, amountWithoutDiscount: 48900, unitPrice: 48900, sku: "A-1" }] }),
          400,
          "1006",
          "sku",
        ));
      it("rejects an unknown shopperInfo field", () =>
        reject(bad({ shopperInfo: [{ field: "EmailAddress", requirementType: "Required", label: "E-mail" }] }), 400, "1006", "label"));
      it("rejects server-managed fields on create", () => reject(bad({ status: "Active" }), 400, "1006", "status"));
    });

    describe("000 required field missing", () => {
      for (const field of ["type", "terminalIdentifier", "amount", "currency"]) {
        it(`rejects a request without ${field}`, () => reject(without(field), 400, "000", field));
      }
      it("rejects a PayByLink without items", () => reject(without("items"), 400, "000", "items"));
      for (const field of ["name", "quantity", "unitPrice", "amountWithoutDiscount", "amount"]) {
        it(`rejects an item without ${field}`, () => {
          const item: Record<string, unknown> = {
            name: "Peysa",
            quantity: 1,
            unitPrice: 48900,
            amountWithoutDiscount: 48900,
            amount: 48900,
          };
          delete item[field];
          return reject(bad({ items: [item] }), 400, "000", field);
        });
      }
      it("rejects an item with an empty name", () =>
        reject(
          bad({ items: [{ name: "", quantity: 1, unitPrice: 48900, amountWithoutDiscount: 48900, amount: 48900 }] }),
          400,
          "000",
          "name",
        ));
      it("rejects a shopperInfo entry without requirementType", () =>
        reject(bad({ shopperInfo: [{ field: "City" }] }), 400, "000", "requirementType"));
      it("rejects Prefilled without a prefilledValue (absent, null or blank)", async () => {
        await reject(bad({ shopperInfo: [{ field: "FullName", requirementType: "Prefilled" }] }), 400, "000", "prefilledValue");
        await reject(
          bad({ shopperInfo: [{ field: "FullName", requirementType: "Prefilled", prefilledValue: null }] }),
          400,
          "000",
          "prefilledValue",
        );
        await reject(
          bad({ shopperInfo: [{ field: "FullName", requirementType: "Prefilled", prefilledValue: "   " }] }),
          400,
          "000",
          "prefilledValue",
        );
      });
      it("rejects an empty themeKey", () => reject(bad({ themeKey: "" }), 400, "000", "themeKey"));
    });

    describe("3001 unauthenticated", () => {
      it("rejects a request without an API key", async () => {
        const noKey = { baseUrl: server.baseUrl, apiKey: "" };
        assertError(
          await rawRequest(noKey, "POST", CREATE, { body: JSON.stringify(payByLink(server)), contentType: "application/json" }),
          401,
          "3001",
        );
        assertError(await create(payByLink(server), { "x-api-key": "" }), 401, "3001");
      });
      it("rejects an unknown, well-formed key", async () =>
        assertError(await create(payByLink(server), { "x-api-key": `plk_${"A".repeat(32)}` }), 401, "3001"));
      it("rejects a malformed key", async () => {
        assertError(await create(payByLink(server), { "x-api-key": "hello" }), 401, "3001");
        assertError(await create(payByLink(server), { "x-api-key": `${server.apiKey}x` }), 401, "3001");
        assertError(await create(payByLink(server), { "x-api-key": `Bearer ${server.apiKey}` }), 401, "3001");
      });
      it("rejects a revoked key, and accepts it until it is revoked", async () => {
        const { keyId, apiKey } = await createApiKey(server.db, server.merchantId, "to be revoked");
        assertOk(await create(payByLink(server), { "x-api-key": apiKey }));
        assert.equal(await revokeApiKey(server.db, server.merchantId, keyId), true);
        assertError(await create(payByLink(server), { "x-api-key": apiKey }), 401, "3001");
        assertError(await server.api("GET", "/api/v1/paymentlinks", undefined, { "x-api-key": apiKey }), 401, "3001");
      });
      it("reads the header name case-insensitively", async () => {
        const response = await rawRequest({ baseUrl: server.baseUrl, apiKey: "" }, "POST", CREATE, {
          body: JSON.stringify(payByLink(server)),
          contentType: "application/json",
          headers: { "X-API-KEY": server.apiKey },
        });
        assertOk(response);
      });
      it("checks the key before anything else", async () => {
        assertError(
          await rawRequest({ baseUrl: server.baseUrl, apiKey: "nope" }, "POST", CREATE, { body: "{", contentType: "text/plain" }),
          401,
          "3001",
        );
      });
    });

    describe("3005 body too large", () => {
      it("rejects a body over 1 MiB with 413", async () => {
        const body = JSON.stringify(bad({ description: "x".repeat(1024 * 1024) }));
        assertError(await rawRequest(asRejected(), "POST", CREATE, { body, contentType: "application/json" }), 413, "3005");
      });
    });

    describe("3006 unsupported media type", () => {
      for (const contentType of [
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/xml",
        "multipart/form-data; boundary=x",
        "application/octet-stream",
      ]) {
        it(`rejects ${contentType} with 415`, async () => {
          const body = contentType.startsWith("application/x-www") ? "type=PayByLink&amount=48900" : JSON.stringify(bad({}));
          assertError(await rawRequest(asRejected(), "POST", CREATE, { body, contentType }), 415, "3006");
        });
      }
      it("accepts application/json with a charset parameter", async () => {
        assertOk(
          await rawRequest(server, "POST", CREATE, {
            body: JSON.stringify(payByLink(server)),
            contentType: "application/json; charset=utf-8",
          }),
        );
      });
    });

    it("created nothing for the merchant whose requests were all refused", async () => {
      assert.equal(await countLinks(server, rejected.merchantId), 0);
    });
  });
}
