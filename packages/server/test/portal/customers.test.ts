// The customers pages over real HTTP on both databases: shoppers known by e-mail (the one rule of
// domain/payments/shopper-email.ts, also as SQL) or by their shopper reference, found by e-mail,
// name, reference and last four; a shopper's page with their payments (a refunded one says so),
// refunds and saved cards; another merchant's shopper is a 404.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { shopperEmailSql } from "../../src/db/customers-repository.ts";
import { shopperEmailOf } from "../../src/domain/payments/shopper-email.ts";
import { customerId } from "../../src/portal/customer-id.ts";
import { charge, refund, saveCardOf } from "../support/after-sale.ts";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { type PortalClient, signedIn } from "../support/portal.ts";
import { createSession, paySession } from "../support/sessions.ts";

for (const backend of testBackends()) {
  describe(`portal customers (${backend.name})`, () => {
    let server: TestServer;
    let owner: PortalClient;
    let annaPath: string;
    let charged: { checkoutReference: string; payfacReference: string };
    before(async () => {
      server = await startTestServer({ backend });
      owner = await signedIn(server);
      const anna = await saveCardOf(server, { email: "anna@example.com", name: "Anna Jónsdóttir", culture: "en" });
      charged = (await charge(server, anna.token, { amount: 500000, reference: "renewal-anna" })).body;
      assert.equal((await refund(server, charged.payfacReference, 200000)).status, 200);
      await saveCardOf(server, { email: "bjorn@example.com", name: "Björn Pálsson" }, "5555555555554444");
      const session = await createSession(server, { merchantShopperReference: "shopper-77", reference: "order-77" });
      assert.equal((await paySession(server.baseUrl, session.checkoutReference)).status, 303);
      annaPath = `/portal/customers/${customerId({ kind: "email", value: "anna@example.com" })}`;
    });
    after(() => server?.close());

    test("the list shows shoppers by e-mail and by shopper reference; the search finds each way", async () => {
      const page = await owner.get("/portal/customers?lang=en");
      assert.equal(page.status, 200);
      for (const who of ["anna@example.com", "bjorn@example.com", "shopper-77"]) assert.ok(page.text.includes(who), who);
      const cases: Array<[string, string]> = [
        ["ANNA@", "anna@example.com"],
        ["Pálsson", "bjorn@example.com"],
        ["shopper-7", "shopper-77"],
        ["4444", "bjorn@example.com"],
      ];
      for (const [search, who] of cases) {
        const found = await owner.get(`/portal/customers?search=${encodeURIComponent(search)}`);
        const rows = [...found.html.matchAll(/<tr>/g)].length - 1;
        assert.equal(rows, 1, `${search}: one customer`);
        assert.ok(found.text.includes(who), search);
      }
      assert.match((await owner.get("/portal/customers?search=nobody")).text, /No customers found/);
    });

    test("a shopper's page shows their payments, a partly refunded charge, its refund and their saved card", async () => {
      const page = await owner.get(`${annaPath}?lang=en`);
      assert.equal(page.status, 200);
      assert.match(page.text, /Anna Jónsdóttir/);
      assert.ok(page.html.includes(`/portal/payments/${charged.checkoutReference}`), "the charge of their card");
      assert.match(page.text, /Partly refunded/);
      assert.match(page.text, /ISK 2,000/, "the refund");
      assert.match(page.text, /Visa •••• 1111/);
      assert.doesNotMatch(page.text, /bjorn@example\.com|Mastercard/, "nobody else's");
      const is = await owner.get(`${annaPath}?lang=is`);
      assert.match(is.text, /Endurgreitt að hluta/);
      const byReference = await owner.get(`/portal/customers/${customerId({ kind: "reference", value: "shopper-77" })}`);
      assert.equal(byReference.status, 200);
      assert.match(byReference.text, /order-77/);
    });

    test("another merchant's shopper, and an id that names no one, are 404 pages", async () => {
      const other = await server.addMerchant();
      const stranger = await signedIn(server, other);
      assert.equal((await stranger.get(annaPath)).status, 404);
      assert.doesNotMatch((await stranger.get("/portal/customers")).text, /anna@example\.com/);
      assert.equal((await owner.get("/portal/customers/bm9ib2R5")).status, 404);
      assert.equal((await owner.get("/portal/customers/%3Cscript%3E")).status, 404);
      assert.equal((await owner.get(`/portal/customers/${customerId({ kind: "email", value: "nobody@example.com" })}`)).status, 404);
    });

    test("the SQL shopper e-mail agrees with shopperEmailOf", async () => {
      const cases: Array<{ answers: Array<{ field: string; value: string }>; contact: string | null }> = [
        { answers: [], contact: null },
        { answers: [{ field: "EmailAddress", value: "  a@example.com " }], contact: null },
        { answers: [{ field: "EmailAddress", value: "a@example.com" }], contact: "c@example.com" },
        { answers: [{ field: "EmailAddress", value: "   " }], contact: null },
        { answers: [{ field: "FullName", value: "x@example.com" }], contact: "" },
      ];
      for (const { answers, contact } of cases) {
        const row = await sql<{ email: string | null }>`
          SELECT ${shopperEmailSql()} AS email
          FROM (SELECT ${JSON.stringify(answers)}::jsonb AS answers) s, (SELECT ${contact}::text AS shopper_contact) l`.execute(server.db);
        assert.equal(row.rows[0]!.email, shopperEmailOf(answers, contact), JSON.stringify({ answers, contact }));
      }
    });
  });
}
