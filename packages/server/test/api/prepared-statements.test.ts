// The hot paths' fixed statements (db/prepared.ts): named prepared statements on PostgreSQL and on
// PGlite, the same rows either way, and safe under a migration that adds a
// column while the instance runs (a prepared `SELECT *` would then fail).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import type { Database } from "../../src/db/connect.ts";
import { findLinkWithSubmissions, insertLinkIfReferencesValid, listLinkSummaries } from "../../src/db/links-repository.ts";
import { createMerchant, createTerminal } from "../../src/db/merchants-repository.ts";
import type { CreateLinkRequest } from "../../src/domain/links/create.ts";
import { termsFromCreateRequest } from "../../src/domain/links/create.ts";
import { linkCreated } from "../support/audit.ts";
import { oneSessionOf, type TestDatabase, testBackends } from "../support/databases.ts";

const NAMES = ["api_insert_link_if_references_valid", "api_link_with_submissions", "api_link_summaries"];

for (const backend of testBackends()) {
  describe(`prepared statements of the API's hot paths (${backend.name})`, () => {
    let database: TestDatabase;
    /** One session (on PostgreSQL a single connection), so its prepared statements can be read. */
    let db: Database;
    let close: () => Promise<void> = async () => {};
    let merchantId: string;
    let terminalIdentifier: string;

    before(async () => {
      database = await backend.open();
      ({ db, close } = await oneSessionOf(database));
      ({ merchantId } = await createMerchant(database.db, "Prepared"));
      ({ terminalIdentifier } = await createTerminal(database.db, merchantId, "Till", null));
    });
    after(async () => {
      await close();
      await database.destroy();
    });

    const create = async (reference: string, description: string) => {
      const request = { type: "PayByLink", terminalIdentifier, amount: 500, currency: "ISK", description, items: [] };
      const terms = termsFromCreateRequest(request as unknown as CreateLinkRequest, new Date());
      return insertLinkIfReferencesValid(db, reference, merchantId, terms, linkCreated(merchantId, reference));
    };

    it("creates, reads and lists through the statements, twice on one connection", async () => {
      for (const n of [1, 2]) {
        assert.equal(await create(`prepared${n}`, `Order ${n}`), true);
        const found = await findLinkWithSubmissions(db, merchantId, `prepared${n}`);
        assert.equal(found?.link.terms.description, `Order ${n}`);
        assert.deepEqual(found?.submissions, []);
        assert.equal(await findLinkWithSubmissions(db, "mer_other", `prepared${n}`), undefined, "another merchant's link");
        const page = await listLinkSummaries(db, merchantId, {}, { offset: 0, limit: 20 }, new Date());
        assert.equal(page.totalCount, n);
        assert.deepEqual(
          page.links.map((l) => [l.reference, l.amount, l.description]),
          [...Array(n)].map((_, i) => [`prepared${n - i}`, 500, `Order ${n - i}`]),
        );
      }
      // A terminal of no merchant's: nothing inserted.
      const request = { type: "PayByLink", terminalIdentifier: "nosuchterminal", amount: 100, currency: "ISK", items: [] };
      const terms = termsFromCreateRequest(request as unknown as CreateLinkRequest, new Date());
      assert.equal(await insertLinkIfReferencesValid(db, "prepared9", merchantId, terms, linkCreated(merchantId, "prepared9")), false);
    });

    it("are named prepared statements of the session", async () => {
      const { rows } = await sql<{ name: string }>`SELECT name FROM pg_prepared_statements ORDER BY name`.execute(db);
      const names = rows.map((r) => r.name).filter((name) => NAMES.includes(name));
      assert.deepEqual(names, [...NAMES].sort());
    });

    it("keep working when a migration adds a column to payment_links under a running instance", async () => {
      await sql`ALTER TABLE payment_links ADD COLUMN later_column text`.execute(database.db);
      assert.equal(await create("prepared3", "After"), true);
      assert.equal((await findLinkWithSubmissions(db, merchantId, "prepared3"))?.link.terms.description, "After");
      const page = await listLinkSummaries(db, merchantId, {}, { offset: 0, limit: 1 }, new Date());
      assert.deepEqual([page.totalCount, page.links[0]?.reference], [3, "prepared3"]);
    });
  });
}
