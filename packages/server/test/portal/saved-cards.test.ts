// Saved cards in the portal over real HTTP on both databases: the list and its search, charging a
// card (the amount read in the portal's language, a question first, a result page a reload does not
// repeat, a second post of the same question charging nothing), a declined card told in Icelandic,
// disabling with a question first, roles (a viewer sees no button and is refused), the audit log and
// tenancy (another merchant's card is a 404).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { NO_BALANCE_CARD, saveCardOf } from "../support/after-sale.ts";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { type PortalClient, signedIn } from "../support/portal.ts";
import { hiddenInputs } from "../support/shopper.ts";

for (const backend of testBackends()) {
  describe(`portal saved cards (${backend.name})`, () => {
    let server: TestServer;
    let owner: PortalClient;
    let viewer: PortalClient;
    let anna: { token: string; checkoutReference: string };
    let broke: { token: string; checkoutReference: string };
    before(async () => {
      server = await startTestServer({ backend });
      owner = await signedIn(server);
      viewer = await signedIn(server, server, "viewer@example.com", "viewer");
      anna = await saveCardOf(server, { email: "Anna@Example.com", name: "Anna Jónsdóttir" });
      broke = await saveCardOf(server, { email: "jon@example.com", name: "Jón Jónsson" }, NO_BALANCE_CARD);
    });
    after(() => server?.close());

    const chargesOf = async (token: string) =>
      (
        await sql<{ amount: string | number; state: string }>`SELECT amount, state FROM token_payments WHERE token = ${token}`.execute(
          server.db,
        )
      ).rows.map((row) => ({ amount: Number(row.amount), state: row.state }));

    test("the list names the cards and their shoppers; the search finds by e-mail, name and last four", async () => {
      const page = await owner.get("/portal/saved-cards?lang=en");
      assert.equal(page.status, 200);
      assert.match(page.text, /Visa •••• 1111/);
      assert.match(page.text, /anna@example\.com/);
      assert.ok(!page.html.includes(anna.token), "the token is never shown");
      for (const search of ["anna@", "Jónsdóttir", "1111"]) {
        const found = await owner.get(`/portal/saved-cards?search=${encodeURIComponent(search)}`);
        assert.match(found.html, new RegExp(`/portal/saved-cards/${anna.checkoutReference}`), search);
        assert.doesNotMatch(found.html, new RegExp(`/portal/saved-cards/${broke.checkoutReference}`), search);
      }
      assert.match((await owner.get("/portal/saved-cards?search=nobody")).text, /No saved cards/);
    });

    test("charging asks first, reads 18.900 in Icelandic as 18 900 kr., and a reload or a second post charges nothing", async () => {
      const path = `/portal/saved-cards/${anna.checkoutReference}`;
      const card = await owner.get(`${path}?lang=is`);
      assert.equal(card.status, 200);
      assert.match(card.text, /Færa á þetta kort/);
      const asked = await owner.get(`${path}/charge?amount=18.900&currency=ISK&reference=askrift-11`);
      assert.equal(asked.status, 200);
      assert.match(asked.text, /Færa 18\.900 kr\. á Visa •••• 1111\?/);
      assert.deepEqual(await chargesOf(anna.token), [], "the question charges nothing");
      const fields = hiddenInputs(asked.html);
      const done = await owner.post(`${path}/charge`, {}, asked);
      assert.equal(done.status, 303);
      assert.match(done.location!, new RegExp(`^${path}\\?charged=`));
      assert.deepEqual(await chargesOf(anna.token), [{ amount: 1890000, state: "approved" }]);
      const result = await owner.get(done.location!);
      assert.match(result.text, /18\.900 kr\. fært\. Greiðslan er samþykkt\./);
      await owner.get(done.location!);
      const again = await owner.post(`${path}/charge`, fields);
      assert.equal(again.status, 303);
      assert.equal(again.location, done.location, "the same question posted twice leads to the same result");
      assert.equal((await chargesOf(anna.token)).length, 1, "charged once");
      const plain = await owner.get(`${path}/charge?amount=18900&currency=ISK&reference=askrift-12`);
      assert.match(plain.text, /Færa 18\.900 kr\. á/, "18900 and 18.900 are the same in Icelandic");
      const audit = (
        await sql<{
          details: { last4: string };
        }>`SELECT details FROM audit_log WHERE action = 'token.charge' AND actor_kind = 'user'`.execute(server.db)
      ).rows;
      assert.equal(audit.length, 1);
      assert.equal(audit[0]!.details.last4, "1111");
    });

    test("bad input shows the form again with the field's error", async () => {
      const path = `/portal/saved-cards/${anna.checkoutReference}`;
      const bad = await owner.get(`${path}/charge?amount=lots&currency=ISK&reference=&lang=en`);
      assert.equal(bad.status, 400);
      assert.match(bad.text, /Enter an amount greater than zero/);
      assert.match(bad.text, /Enter your reference/);
      const zero = await owner.get(`${path}/charge?amount=0&currency=XXX&reference=a`);
      assert.equal(zero.status, 400);
      assert.match(zero.text, /Choose a currency/);
    });

    test("a declined charge is told with its reason in Icelandic, never as a success", async () => {
      const path = `/portal/saved-cards/${broke.checkoutReference}`;
      await owner.get(`${path}?lang=is`);
      const asked = await owner.get(`${path}/charge?amount=990&currency=ISK&reference=askrift-13`);
      const done = await owner.post(`${path}/charge`, {}, asked);
      assert.equal(done.status, 303);
      const result = await owner.get(done.location!);
      assert.match(result.text, /Færslu upp á 990 kr\. var hafnað: Ekki næg innstæða\./);
      assert.doesNotMatch(result.text, /samþykkt/);
      assert.deepEqual(await chargesOf(broke.token), [{ amount: 99000, state: "declined" }]);
    });

    test("a viewer sees no charge or disable button and is refused on every post", async () => {
      const path = `/portal/saved-cards/${anna.checkoutReference}`;
      const page = await viewer.get(`${path}?lang=en`);
      assert.equal(page.status, 200);
      assert.doesNotMatch(page.html, /\/charge"/);
      assert.doesNotMatch(page.html, /\/disable"/);
      assert.equal((await viewer.get(`${path}/charge?amount=100&currency=ISK&reference=x`)).status, 403);
      assert.equal((await viewer.get(`${path}/disable`)).status, 403);
      const csrf = await viewer.csrf();
      const charge = await viewer.post(`${path}/charge`, {
        csrf,
        amount: "100",
        currency: "ISK",
        reference: "x",
        attempt: "00000000-0000-4000-8000-000000000000",
      });
      assert.equal(charge.status, 403);
      assert.equal((await viewer.post(`${path}/disable`, { csrf })).status, 403);
      assert.equal((await chargesOf(anna.token)).length, 1, "nothing more was charged");
    });

    test("another merchant's card is a 404 page on every address", async () => {
      const other = await server.addMerchant();
      const stranger = await signedIn(server, other);
      const path = `/portal/saved-cards/${anna.checkoutReference}`;
      assert.equal((await stranger.get(path)).status, 404);
      assert.equal((await stranger.get(`${path}/charge?amount=100&currency=ISK&reference=x`)).status, 404);
      assert.equal((await stranger.get(`${path}/disable`)).status, 404);
      const csrf = await stranger.csrf();
      assert.equal((await stranger.post(`${path}/disable`, { csrf })).status, 404);
      assert.doesNotMatch((await stranger.get("/portal/saved-cards")).text, /Visa •••• 1111/);
    });

    test("disabling asks first, says what happened, and the card can no longer be charged", async () => {
      const path = `/portal/saved-cards/${anna.checkoutReference}`;
      const asked = await owner.get(`${path}/disable?lang=en`);
      assert.equal(asked.status, 200);
      assert.match(asked.text, /Disable Visa •••• 1111\?/);
      const done = await owner.post(`${path}/disable`, {}, asked);
      assert.equal(done.status, 303);
      const page = await owner.get(done.location!);
      assert.match(page.text, /The card is disabled; it can no longer be charged\./);
      assert.match(page.text, /Disabled/);
      assert.doesNotMatch(page.html, /\/charge"/);
      const charged = await server.api("POST", "/api/v1/payment", {
        terminalIdentifier: server.terminalIdentifier,
        amount: 1000,
        currency: "ISK",
        reference: "after-disable",
        tokenDetails: { tokenValue: anna.token },
      });
      assert.equal(charged.status, 409);
      const audit = await sql<{ n: string | number }>`SELECT count(*) AS n FROM audit_log WHERE action = 'token.disable'`.execute(
        server.db,
      );
      assert.equal(Number(audit.rows[0]!.n), 1);
    });
  });
}
