// The overview over real HTTP on both databases (docs/decisions.md#portal-pages): sales and revenue
// count every approved payment that took money, link sales and saved-card charges alike; a saved
// card (a TokenizeByLink sale) and a refused charge count for nothing; refunds come off the net;
// each currency stands on its own; conversion stays the links' visits → sales, which a saved-card
// charge never moves.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { charge, NO_BALANCE_CARD, refund, saveCard, sellLink } from "../support/after-sale.ts";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { type PortalClient, signedIn } from "../support/portal.ts";
import { cardFields, createLink, pay } from "../support/shopper.ts";

/** The y-axis's amounts of the overview's chart, bottom up. */
function axisOf(html: string): string[] {
  return [...html.matchAll(/<g data-axis[^>]*>[\s\S]*?<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!);
}

/** The cells of one currency's row in the overview's money table. */
function moneyRowOf(html: string, currency: string): string[] {
  const row = new RegExp(`<tr data-currency="${currency}">([\\s\\S]*?)</tr>`).exec(html)?.[1] ?? "";
  return [...row.matchAll(/<td[^>]*>(?:<strong>)?([^<]*)/g)].map((m) => m[1]!);
}

/** The four figures at the top of the overview, as shown. */
async function stats(portal: PortalClient): Promise<Record<string, string>> {
  const page = await portal.get("/portal/overview");
  assert.equal(page.status, 200);
  return Object.fromEntries([...page.html.matchAll(/<dd data-stat="(\w+)">([^<]*)<\/dd>/g)].map((m) => [m[1]!, m[2]!]));
}

for (const backend of testBackends()) {
  describe(`portal overview (${backend.name})`, () => {
    let server: TestServer;
    let portal: PortalClient;
    before(async () => {
      server = await startTestServer({ backend });
      portal = await signedIn(server);
    });
    after(() => server?.close());

    test("revenue and sales include approved saved-card charges; conversion stays a link metric", async () => {
      await sellLink(server, 48900);
      const approvedCard = await saveCard(server);
      const refusedCard = await saveCard(server, NO_BALANCE_CARD);
      const linksOnly = await stats(portal);
      assert.equal(linksOnly.sales, "1", "one link sale; saving a card sells nothing");
      assert.equal(linksOnly.net, "ISK 489");

      const charged = await charge(server, approvedCard, { reference: "invoice-7781", amount: 129900 });
      assert.equal(charged.body.resultCode, "Authorised", JSON.stringify(charged.body));
      const refused = await charge(server, refusedCard, { reference: "renewal-0042", amount: 99900 });
      assert.equal(refused.body.resultCode, "Refused", JSON.stringify(refused.body));

      const withCharges = await stats(portal);
      assert.equal(withCharges.sales, "2", "the approved charge is a sale; the refused one is not");
      assert.equal(withCharges.net, "ISK 1,788", "489 from the link, 1,299 from the saved card");
      assert.equal(withCharges.visits, linksOnly.visits);
      assert.equal(withCharges.conversion, linksOnly.conversion, "a charge of a saved card is no visit → sale of a link");

      const page = await portal.get("/portal/overview");
      const today = new Date().toISOString().slice(0, 10);
      assert.match(page.text, new RegExp(`${today} 2 ISK 1,788`), "the chart's table: today's two sales and their revenue");
      assert.match(page.html, new RegExp(`<title>${today}: ISK 1,788, 2 sales</title>`), "the chart's bar for today");
      assert.deepEqual(axisOf(page.html), ["ISK 0", "ISK 1,000", "ISK 2,000"], "the y-axis: round amounts up to the top");

      // Half the charge refunded: gross stays, the refund comes off the net.
      assert.equal((await refund(server, charged.body.payfacReference, 60000)).status, 200);
      const afterRefund = await portal.get("/portal/overview");
      assert.deepEqual(moneyRowOf(afterRefund.html, "ISK"), ["ISK", "2", "ISK 1,788", "− ISK 600", "ISK 1,188"]);
      assert.equal((await stats(portal)).net, "ISK 1,188");

      // A sale in euros stands on its own: never added to krónur, counted in its own row.
      const euroLink = await createLink(server, {
        currency: "EUR",
        amount: 1250,
        items: [{ name: "Gift card", quantity: 1, unitPrice: 1250, amountWithoutDiscount: 1250, amount: 1250 }],
      });
      const paid = await pay(server.baseUrl, euroLink, cardFields());
      assert.ok(paid.status === 200 || paid.status === 303);
      const mixed = await portal.get("/portal/overview");
      assert.deepEqual(moneyRowOf(mixed.html, "EUR"), ["EUR", "1", "EUR 12.50", "EUR 0.00", "EUR 12.50"]);
      assert.deepEqual(moneyRowOf(mixed.html, "ISK"), ["ISK", "2", "ISK 1,788", "− ISK 600", "ISK 1,188"], "krónur unchanged");
      assert.equal((await stats(portal)).net, "ISK 1,188 · EUR 12.50");
      assert.deepEqual(axisOf(mixed.html), ["ISK 0", "ISK 1,000", "ISK 2,000"], "the chart stays in the currency that sold most");
    });
  });
}
