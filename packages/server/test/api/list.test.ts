// GET /api/v1/paymentlinks (docs/api.md#list): newest first, 0-based pages, filters, exact entry shape.
// Each test lists as a merchant of its own, so the links of other tests never show up.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { testBackends } from "../support/databases.ts";
import {
  as,
  assertError,
  assertOk,
  future,
  ISO_UTC,
  setCreatedAt,
  setSalesCount,
  setValidUntil,
  simplePayByLink,
  tokenizeByLink,
} from "../support/fixtures.ts";
import { type MerchantFixture, startTestServer, type TestServer } from "../support/harness.ts";
import { createLink } from "../support/shopper.ts";

const LIST = "/api/v1/paymentlinks";
const ENTRY_KEYS = [
  "amount",
  "createdAt",
  "currency",
  "description",
  "maxSalesCount",
  "paymentLinkReference",
  "salesCount",
  "status",
  "type",
  "url",
  "validUntil",
  "visitCount",
].sort();

for (const backend of testBackends()) {
  describe(`list payment links (${backend.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ backend });
    });
    after(() => server?.close());

    const list = async (merchant: MerchantFixture, query = "") => {
      const response = await server.api("GET", `${LIST}${query}`, undefined, as(merchant));
      assertOk(response);
      assert.deepEqual(Object.keys(response.body).sort(), ["data", "responseDateTime", "responseIdentifier", "totalCount"]);
      return response.body as { data: any[]; totalCount: number };
    };
    const refs = (page: { data: any[] }) => page.data.map((entry) => entry.paymentLinkReference);

    describe("ordering and paging", () => {
      let merchant: MerchantFixture;
      /** References, oldest first. */
      const created: string[] = [];

      before(async () => {
        merchant = await server.addMerchant();
        const base = Date.now() - 100 * 60_000;
        for (let i = 0; i < 25; i++) {
          const reference = await createLink(server, simplePayByLink(merchant, { description: `Link ${i}` }), as(merchant));
          await setCreatedAt(server, reference, new Date(base + i * 60_000));
          created.push(reference);
        }
      });

      it("lists newest first with 20 per page by default", async () => {
        const page = await list(merchant);
        assert.equal(page.totalCount, 25);
        assert.equal(page.data.length, 20);
        assert.deepEqual(refs(page), [...created].reverse().slice(0, 20));
      });

      it("pages with page and pageSize; totalCount counts all matches", async () => {
        const newestFirst = [...created].reverse();
        const seen: string[] = [];
        for (let p = 0; p < 3; p++) {
          const page = await list(merchant, `?page=${p}&pageSize=10`);
          assert.equal(page.totalCount, 25);
          assert.equal(page.data.length, p < 2 ? 10 : 5);
          seen.push(...refs(page));
        }
        assert.deepEqual(seen, newestFirst);
        const beyond = await list(merchant, "?page=3&pageSize=10");
        assert.deepEqual(beyond.data, []);
        assert.equal(beyond.totalCount, 25);
      });

      it("accepts pageSize 1 and 100", async () => {
        assert.deepEqual(refs(await list(merchant, "?pageSize=1")), [created[24]]);
        assert.equal((await list(merchant, "?pageSize=100")).data.length, 25);
      });

      it("returns entries of exactly the docs/api.md#list shape", async () => {
        const [entry] = (await list(merchant, "?pageSize=1")).data;
        assert.deepEqual(Object.keys(entry).sort(), ENTRY_KEYS);
        assert.equal(entry.paymentLinkReference, created[24]);
        assert.equal(entry.description, "Link 24");
        assert.equal(entry.amount, 1250);
        assert.equal(entry.currency, "EUR");
        assert.equal(entry.type, "PayByLink");
        assert.equal(entry.status, "Active");
        assert.equal(entry.url, `${server.baseUrl}/pay/${created[24]}`);
        assert.match(entry.createdAt, ISO_UTC);
        assert.equal(entry.validUntil, null);
        assert.equal(entry.visitCount, 0);
        assert.equal(entry.salesCount, 0);
        assert.equal(entry.maxSalesCount, null);
      });

      it("filters by creation time (createdFrom, createdTo, both inclusive)", async () => {
        const from = (await list(merchant, `?pageSize=100`)).data.find((e) => e.paymentLinkReference === created[10])!.createdAt;
        const to = (await list(merchant, `?pageSize=100`)).data.find((e) => e.paymentLinkReference === created[14])!.createdAt;
        assert.deepEqual(refs(await list(merchant, `?createdFrom=${from}&pageSize=100`)), created.slice(10).reverse());
        assert.deepEqual(refs(await list(merchant, `?createdTo=${to}&pageSize=100`)), created.slice(0, 15).reverse());
        const both = await list(merchant, `?createdFrom=${from}&createdTo=${to}`);
        assert.deepEqual(refs(both), created.slice(10, 15).reverse());
        assert.equal(both.totalCount, 5);
      });
    });

    describe("filters", () => {
      let merchant: MerchantFixture;
      const byStatus: Record<string, string> = {};
      let tokenize: string;

      before(async () => {
        merchant = await server.addMerchant();
        const make = (body: Record<string, unknown>) => createLink(server, body, as(merchant));
        byStatus.Active = await make(simplePayByLink(merchant, { description: "Blue wool sweater" }));
        byStatus.Expired = await make(simplePayByLink(merchant, { expiresAt: future(), description: "Winter sale 50% off" }));
        await setValidUntil(server, byStatus.Expired, new Date(Date.now() - 60_000));
        byStatus.Used = await make(simplePayByLink(merchant, { maxSalesCount: 1, description: "Concert_ticket" }));
        await setSalesCount(server, byStatus.Used, 1);
        byStatus.Disabled = await make(simplePayByLink(merchant, { description: "old" }));
        assertOk(await server.api("POST", "/api/v1/paymentlinks/disable", { paymentLinkReference: byStatus.Disabled }, as(merchant)));
        byStatus.Completed = await make(tokenizeByLink(merchant));
        await setSalesCount(server, byStatus.Completed, 1);
        tokenize = await make(tokenizeByLink(merchant, { description: "Save your card" }));
      });

      for (const status of ["Active", "Expired", "Used", "Disabled", "Completed"]) {
        it(`filters status=${status}`, async () => {
          const page = await list(merchant, `?status=${status}`);
          const expected = status === "Active" ? [tokenize, byStatus.Active].sort() : [byStatus[status]];
          assert.deepEqual(refs(page).sort(), expected);
          assert.equal(page.totalCount, expected.length);
          for (const entry of page.data) assert.equal(entry.status, status);
        });
      }

      it("shows the derived status and counters of each entry", async () => {
        const page = await list(merchant);
        assert.equal(page.totalCount, 6);
        const entry = page.data.find((e) => e.paymentLinkReference === byStatus.Used)!;
        assert.equal(entry.salesCount, 1);
        assert.equal(entry.maxSalesCount, 1);
        const completed = page.data.find((e) => e.paymentLinkReference === byStatus.Completed)!;
        assert.equal(completed.status, "Completed");
        assert.equal(completed.type, "TokenizeByLink");
        assert.equal(completed.maxSalesCount, 1);
      });

      it("filters by type", async () => {
        const tokenizeLinks = await list(merchant, "?type=TokenizeByLink");
        assert.deepEqual(refs(tokenizeLinks).sort(), [byStatus.Completed, tokenize].sort());
        assert.equal((await list(merchant, "?type=PayByLink")).totalCount, 4);
        assert.deepEqual(refs(await list(merchant, "?type=TokenizeByLink&status=Active")), [tokenize]);
      });

      it("searches the description, case-insensitively", async () => {
        assert.deepEqual(refs(await list(merchant, "?search=WOOL")), [byStatus.Active]);
        assert.deepEqual(refs(await list(merchant, `?search=${encodeURIComponent("sweater")}`)), [byStatus.Active]);
      });

      it("searches the reference", async () => {
        const reference = byStatus.Disabled!;
        assert.deepEqual(refs(await list(merchant, `?search=${encodeURIComponent(reference)}`)), [reference]);
        assert.ok(refs(await list(merchant, `?search=${encodeURIComponent(reference.slice(2, 12))}`)).includes(reference));
      });

      it("treats % and _ in a search literally", async () => {
        assert.deepEqual(refs(await list(merchant, `?search=${encodeURIComponent("50%")}`)), [byStatus.Expired]);
        assert.deepEqual(refs(await list(merchant, `?search=${encodeURIComponent("t_t")}`)), [byStatus.Used]);
        assert.deepEqual(refs(await list(merchant, `?search=${encodeURIComponent("%")}`)), [byStatus.Expired]);
      });

      it("returns an empty page when nothing matches", async () => {
        const page = await list(merchant, "?search=nothing-matches-this");
        assert.deepEqual(page.data, []);
        assert.equal(page.totalCount, 0);
      });

      it("lists nothing of another merchant", async () => {
        const stranger = await server.addMerchant();
        const page = await list(stranger);
        assert.deepEqual(page.data, []);
        assert.equal(page.totalCount, 0);
        assert.equal((await list(stranger, `?search=${byStatus.Active}`)).totalCount, 0);
      });
    });

    describe("bad query values", () => {
      const cases: Array<[string, number, string, string?]> = [
        ["?status=Nope", 400, "2003", "status"],
        ["?type=PayByCheque", 400, "2003", "type"],
        ["?page=-1", 400, "2002", "page"],
        ["?pageSize=0", 400, "2002", "pageSize"],
        ["?pageSize=101", 400, "2009", "pageSize"],
        ["?page=abc", 400, "1005", "page"],
        ["?pageSize=2.5", 400, "1005", "pageSize"],
        ["?createdFrom=garbage", 400, "2008", "createdFrom"],
        ["?createdTo=2030-02-31T25:00:00Z", 400, "2008", "createdTo"],
        ["?createdFrom=0000-01-01T00:00:00Z", 400, "2008", "createdFrom"],
        ["?createdFrom=2030-01-02T00:00:00Z&createdTo=2030-01-01T00:00:00Z", 400, "2013", "createdFrom"],
        [`?search=${"s".repeat(201)}`, 400, "2009", "search"],
        ["?search=a%00b", 400, "2008", "search"],
      ];
      for (const [query, status, code, field] of cases) {
        it(`${query.slice(0, 60)} → ${status} ${code}`, async () =>
          assertError(await server.api("GET", `${LIST}${query}`), status, code, field));
      }
      it("requires an API key (3001)", async () => assertError(await server.api("GET", LIST, undefined, { "x-api-key": "" }), 401, "3001"));
    });
  });
}
