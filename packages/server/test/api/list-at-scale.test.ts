// The list at scale (migration 0015): the unfiltered totalCount comes from each merchant's link
// counter, which must count links however they are written (the API, the portal, a bulk INSERT, a
// DELETE), one merchant apart from another; and search finds its matches through the trigram index
// with unchanged results.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { testBackends } from "../support/databases.ts";
import { as, assertOk, simplePayByLink } from "../support/fixtures.ts";
import { type MerchantFixture, startTestServer, type TestServer } from "../support/harness.ts";
import { createLink } from "../support/shopper.ts";

const LIST = "/api/v1/paymentlinks";

for (const backend of testBackends()) {
  describe(`list payment links at scale (${backend.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ backend });
    });
    after(() => server?.close());

    const list = async (merchant: MerchantFixture, query = "") => {
      const response = await server.api("GET", `${LIST}${query}`, undefined, as(merchant));
      assertOk(response);
      return response.body as { data: { paymentLinkReference: string; description: string }[]; totalCount: number };
    };

    /** Links written straight into the table, as the growth benchmark and a data import do. */
    const bulkInsert = async (merchant: MerchantFixture, prefix: string, count: number) => {
      await sql`
        INSERT INTO payment_links (reference, merchant_id, terminal_identifier, type, amount, currency, items, shopper_info,
                                   culture, description, created_at)
        SELECT ${prefix} || lpad(g::text, 8, '0'), ${merchant.merchantId}, ${merchant.terminalIdentifier}, 'PayByLink', 100, 'ISK',
               '[]'::jsonb, '[]'::jsonb, 'is', 'Bulk order ' || g, now() - interval '1 hour' - interval '1 second' * g
        FROM generate_series(1, ${count}::int) g
      `.execute(server.db);
    };

    const countedInTable = async (merchant: MerchantFixture) => {
      const { rows } = await sql<{ count: string | number }>`
        SELECT count(*) AS count FROM payment_links WHERE merchant_id = ${merchant.merchantId}
      `.execute(server.db);
      return Number(rows[0]!.count);
    };

    it("counts links made through the API and by bulk inserts, per merchant", async () => {
      const merchant = await server.addMerchant();
      const other = await server.addMerchant();
      assert.equal((await list(merchant)).totalCount, 0);
      for (let i = 0; i < 3; i++) await createLink(server, simplePayByLink(merchant), as(merchant));
      await createLink(server, simplePayByLink(other), as(other));
      await bulkInsert(merchant, "Bcount", 500);
      const page = await list(merchant);
      assert.equal(page.totalCount, 503);
      assert.equal(page.totalCount, await countedInTable(merchant));
      assert.equal(page.data.length, 20);
      assert.equal((await list(other)).totalCount, 1);
      // A page past the end still reports the total.
      assert.equal((await list(merchant, "?page=1000&pageSize=100")).totalCount, 503);
    });

    it("counts down when links are deleted", async () => {
      const merchant = await server.addMerchant();
      await bulkInsert(merchant, "Bdelete", 40);
      await sql`DELETE FROM payment_links WHERE merchant_id = ${merchant.merchantId} AND description LIKE 'Bulk order 1%'`.execute(
        server.db,
      );
      const page = await list(merchant);
      assert.equal(page.totalCount, await countedInTable(merchant));
      assert.equal(page.totalCount, 40 - 11);
    });

    it("does not count a create that failed", async () => {
      const merchant = await server.addMerchant();
      await createLink(server, simplePayByLink(merchant), as(merchant));
      const refused = await server.api(
        "POST",
        "/api/v1/paymentlinks/create",
        { ...simplePayByLink(merchant), terminalIdentifier: "no-such-terminal" },
        as(merchant),
      );
      assert.notEqual(refused.status, 200);
      assert.equal((await list(merchant)).totalCount, 1);
    });

    describe("search among many links", () => {
      let merchant: MerchantFixture;
      before(async () => {
        merchant = await server.addMerchant();
        await bulkInsert(merchant, "Bsearch", 3000);
        await sql`ANALYZE payment_links`.execute(server.db);
      });

      it("finds the same links as reading every description would", async () => {
        const page = await list(merchant, `?search=${encodeURIComponent("ORDER 77")}&pageSize=100`);
        // 77, 770–779 and 7700–7799 are beyond 3000 except 77 and 770–779: 11 matches.
        assert.equal(page.totalCount, 11);
        assert.deepEqual(
          page.data.map((entry) => entry.description),
          ["Bulk order 77", ...Array.from({ length: 10 }, (_, i) => `Bulk order ${770 + i}`)],
        );
        // References Bsearch00002990 to Bsearch00002999.
        assert.equal((await list(merchant, "?search=bSEARCH0000299")).totalCount, 10);
        assert.equal((await list(merchant, "?search=r%2012")).totalCount, 1 + 10 + 100);
      });

      it("answers short searches, which no trigram covers, the same way", async () => {
        const page = await list(merchant, "?search=99");
        const expected = Array.from({ length: 3000 }, (_, i) => `Bulk order ${i + 1}`).filter((text) => text.includes("99"));
        assert.equal(page.totalCount, expected.length);
      });

      it("reads the trigram index, not every link, for the search's matches", async () => {
        // With a few thousand links the planner rightly prefers the merchant's own index; what must
        // hold on both databases is that the trigram index serves ILIKE on both columns at all.
        // Both indexes hold links only (sessions are never listed), so without the merchant's
        // condition its index is a scan of all links too: it is dropped for this one rolled-back
        // transaction.
        let plan = "";
        await server.db
          .transaction()
          .execute(async (trx) => {
            await sql`SET LOCAL enable_seqscan = off`.execute(trx);
            await sql`DROP INDEX payment_links_by_merchant_newest`.execute(trx);
            const { rows } = await sql<{ "QUERY PLAN": string }>`
              EXPLAIN SELECT count(*) FROM payment_links
              WHERE kind = 'link' AND (reference ILIKE '%order 77%' OR description ILIKE '%order 77%')
            `.execute(trx);
            plan = rows.map((row) => row["QUERY PLAN"]).join("\n");
            throw new Error("roll back");
          })
          .catch(() => undefined);
        assert.match(plan, /payment_links_search/, plan);
      });
    });
  });
}
