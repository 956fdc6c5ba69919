// Refund and reverse from the portal's payment page over real HTTP: the API's refund services with
// their rules (never more than what is left), the refunds listed on the page and in the CSV, and
// the Refund webhook in the endpoint's delivery log.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { createWebhookEndpoint } from "../../src/db/webhook-endpoints-repository.ts";
import { testBackends } from "../support/databases.ts";
import { getLink } from "../support/fixtures.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { testKeyring } from "../support/keyring.ts";
import { type PortalClient, signedIn } from "../support/portal.ts";
import { cardFields, createLink, pay } from "../support/shopper.ts";

for (const backend of testBackends()) {
  describe(`portal refunds (${backend.name})`, () => {
    let server: TestServer;
    let portal: PortalClient;
    let webhookId: string;
    before(async () => {
      server = await startTestServer({ backend });
      portal = await signedIn(server);
      webhookId = (await createWebhookEndpoint(server.db, testKeyring(), server.merchantId, { url: "https://hooks.example.com/in" }))
        .endpoint.webhookId;
    });
    after(() => server?.close());

    test("refund half, then too much is refused, then reverse the rest; the CSV and the delivery log show it", async () => {
      const reference = await createLink(server, {
        amount: 489000,
        items: [{ name: "Peysa", quantity: 1, unitPrice: 489000, amountWithoutDiscount: 489000, amount: 489000 }],
        shopperInfo: [{ field: "EmailAddress", requirementType: "Required" }],
      });
      await pay(server.baseUrl, reference, { ...cardFields(), EmailAddress: "gudrun@example.is" });
      const checkoutReference = (await getLink(server, reference)).submissions[0].checkoutReference as string;
      const path = `/portal/payments/${checkoutReference}`;
      let page = await portal.get(path);
      assert.match(page.text, /Amount to refund \(at most ISK 4,890\)/);
      const asked = await portal.get(`${path}/refund?amount=2445&refundReason=RETURN`);
      assert.match(asked.text, /Refund ISK 2,445 to the shopper\?/);
      assert.match(asked.html, /<input type="hidden" name="amount" value="2445"\/>/);
      assert.equal(
        (await portal.get(`${path}/refund?amount=9999&refundReason=RETURN`)).status,
        400,
        "more than the payment is refused before asking",
      );
      const half = await portal.post(`${path}/refund`, { amount: "2445", refundReason: "RETURN" }, asked);
      assert.equal(half.status, 303, half.text.slice(0, 300));
      page = await portal.get(`${path}?refunded=1`);
      assert.match(page.text, /The refund was sent/);
      assert.match(page.text, /Refund .* Returned goods ISK 2,445 Refunded/);
      assert.match(page.text, /at most ISK 2,445/);
      const pill = (html: string) => /<h1>[^<]*<span class="pill[^"]*">([^<]+)<\/span>/.exec(html)?.[1];
      assert.equal(pill(page.html), "Partly refunded", "the payment's state says money went back");
      const listed = (html: string) =>
        new RegExp(`/portal/payments/${checkoutReference}"[\\s\\S]*?<span class="pill[^"]*">([^<]+)</span>`).exec(html)?.[1];
      assert.equal(listed((await portal.get("/portal/payments")).html), "Partly refunded");

      const tooMuch = await portal.post(`${path}/refund`, { amount: "3000", refundReason: "OTHER", attempt: randomUUID() }, page);
      assert.equal(tooMuch.status, 400);
      // The API's message, its amounts as the merchant typed and reads them, not the wire's minor units.
      assert.match(tooMuch.text, /Amount ISK 3,000 is more than what is left to refund of payment [A-Z0-9]+: ISK 2,445\./);
      assert.doesNotMatch(tooMuch.text, /300000|244500/);
      const unreadable = await portal.post(`${path}/refund`, { amount: "lots", attempt: randomUUID() }, page);
      assert.equal(unreadable.status, 400);

      const today = new Date().toISOString().slice(0, 10);
      const csv = (await portal.get(`/portal/payments.csv?from=${today}&to=${today}`)).html;
      const refundedAt = "\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z";
      assert.match(csv, new RegExp(`${checkoutReference},.*,approved,2445,linkSale,,\\d+,244500,${refundedAt},gudrun@example\\.is\\r\\n`));
      // The list finds the payment by the shopper's e-mail and by the card's last four digits.
      for (const search of ["gudrun@example", "1111"])
        assert.match((await portal.get(`/portal/payments?search=${encodeURIComponent(search)}`)).html, new RegExp(checkoutReference));
      assert.doesNotMatch((await portal.get("/portal/payments?search=nobody%40example.is")).html, new RegExp(checkoutReference));

      const reversed = await portal.post(`${path}/reverse`, { attempt: randomUUID() }, page);
      assert.equal(reversed.status, 303);
      page = await portal.get(path);
      assert.match(page.text, /Reversal .* ISK 2,445 Refunded/);
      assert.doesNotMatch(page.html, /action="[^"]*\/refund"/, "nothing is left to refund");
      assert.equal(pill(page.html), "Refunded", "a fully refunded payment no longer says Approved");
      assert.equal(listed((await portal.get("/portal/payments")).html), "Refunded");
      assert.equal(listed((await portal.get("/portal/overview")).html), "Refunded");

      const log = await portal.get(`/portal/developers/webhooks/${webhookId}`);
      assert.equal((log.html.match(/data-event="Refund"/g) ?? []).length, 2, "one Refund webhook per refund");
    });
  });
}
