// A session in the portal (docs/portal.md): its payment is among the merchant's payments, shown by
// the order id rather than a link, and readable in full; the session itself is not a link, so the
// links page, the overview's link counts and the link detail page never show it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { type PortalClient, signedIn } from "../support/portal.ts";
import { createSession, paySession } from "../support/sessions.ts";

for (const backend of testBackends()) {
  describe(`sessions in the portal (${backend.name})`, () => {
    let server: TestServer;
    let portal: PortalClient;
    before(async () => {
      server = await startTestServer({ backend });
      portal = await signedIn(server);
    });
    after(() => server.close());

    it("the session's payment is listed by its order id; the session is no link", async () => {
      const { checkoutReference } = await createSession(server, { reference: "WC-ORDER-5150" });
      assert.equal((await paySession(server.baseUrl, checkoutReference)).status, 303);

      const payments = await portal.get("/portal/payments");
      assert.equal(payments.status, 200);
      assert.match(payments.text, /WC-ORDER-5150/);
      assert.doesNotMatch(payments.html, new RegExp(`/portal/links/${checkoutReference}`), "no link to a link page that cannot exist");

      const submission = await server.db
        .selectFrom("submissions")
        .select("id")
        .where("link_reference", "=", checkoutReference)
        .executeTakeFirstOrThrow();
      const detail = await portal.get(`/portal/payments/${submission.id}`);
      assert.equal(detail.status, 200);
      assert.match(detail.text, /WC-ORDER-5150/);

      const links = await portal.get("/portal/links");
      assert.equal(links.status, 200);
      assert.doesNotMatch(links.html, new RegExp(checkoutReference));
      assert.equal((await portal.get(`/portal/links/${checkoutReference}`)).status, 404);
    });

    it("the payments search finds a session's payment by its order id, whole or in part, and in the CSV", async () => {
      const { checkoutReference } = await createSession(server, { reference: "WC-ORDER-7788" });
      assert.equal((await paySession(server.baseUrl, checkoutReference)).status, 303);
      const other = await createSession(server, { reference: "WC-ORDER-9911" });
      assert.equal((await paySession(server.baseUrl, other.checkoutReference)).status, 303);
      const { id } = await server.db
        .selectFrom("submissions")
        .select("id")
        .where("link_reference", "=", checkoutReference)
        .executeTakeFirstOrThrow();

      for (const search of ["WC-ORDER-7788", "order-77", "7788"]) {
        const found = await portal.get(`/portal/payments?search=${encodeURIComponent(search)}`);
        assert.equal(found.status, 200);
        assert.match(found.html, new RegExp(`/portal/payments/${id}`), search);
        assert.doesNotMatch(found.text, /WC-ORDER-9911/, search);
      }
      const none = await portal.get("/portal/payments?search=WC-ORDER-0000");
      assert.doesNotMatch(none.html, new RegExp(`/portal/payments/${id}`));
      const csv = await portal.get("/portal/payments.csv?search=WC-ORDER-7788");
      assert.equal(csv.status, 200);
      assert.match(csv.text, /WC-ORDER-7788/);
      assert.doesNotMatch(csv.text, /WC-ORDER-9911/);
    });
  });
}
