// Saved-card charges (POST /api/v1/payment) in the portal over real HTTP on both databases: listed
// beside the link sales with their type, found by the type, result and search filters, opened on
// their own payment page, refunded and reversed there through the API's refund services (the
// same rules, the same Refund webhooks), and exported in the CSV.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { createWebhookEndpoint } from "../../src/db/webhook-endpoints-repository.ts";
import { charge, NO_BALANCE_CARD, saveCard, sellLink } from "../support/after-sale.ts";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { testKeyring } from "../support/keyring.ts";
import { type PortalClient, signedIn } from "../support/portal.ts";

/** The rows of the payments table on a page: [type, reference] per row, newest first. */
function tableRows(html: string): Array<{ source: string; row: string }> {
  return [...html.matchAll(/<tr[^>]*data-source="(link|token)"[^>]*>([\s\S]*?)<\/tr>/g)].map((m) => ({ source: m[1]!, row: m[2]! }));
}

for (const backend of testBackends()) {
  describe(`portal token payments (${backend.name})`, () => {
    let server: TestServer;
    let portal: PortalClient;
    let webhookId: string;
    let approved: { checkoutReference: string; payfacReference: string };
    let refused: { checkoutReference: string; payfacReference: string };
    let sale: { payfacReference: string; linkReference: string };
    before(async () => {
      server = await startTestServer({ backend });
      portal = await signedIn(server);
      webhookId = (await createWebhookEndpoint(server.db, testKeyring(), server.merchantId, { url: "https://hooks.example.com/in" }))
        .endpoint.webhookId;
      sale = await sellLink(server, 48900);
      const charged = await charge(server, await saveCard(server), { reference: "invoice-7781", amount: 129900 });
      assert.equal(charged.body.resultCode, "Authorised", JSON.stringify(charged.body));
      approved = charged.body;
      const declined = await charge(server, await saveCard(server, NO_BALANCE_CARD), { reference: "renewal-0042", amount: 99900 });
      assert.equal(declined.body.resultCode, "Refused", JSON.stringify(declined.body));
      refused = declined.body;
    });
    after(() => server?.close());

    test("the list shows link sales and saved-card charges with their type; the filters and the search find each", async () => {
      const all = await portal.get("/portal/payments");
      assert.equal(all.status, 200);
      const rows = tableRows(all.html);
      const tokenRows = rows.filter((r) => r.source === "token");
      assert.equal(tokenRows.length, 2, "both charges are listed");
      assert.ok(
        tokenRows.some((r) => r.row.includes("invoice-7781") && /Saved card/.test(r.row) && /Approved/.test(r.row)),
        "the approved charge, with its reference and type",
      );
      assert.ok(tokenRows.some((r) => r.row.includes("renewal-0042") && /Declined/.test(r.row)));
      assert.ok(rows.some((r) => r.source === "link" && r.row.includes(sale.linkReference) && /Link sale/.test(r.row)));
      assert.match(all.text, /Page 1 of 1 \(5 payments\)/, "two link sales saved the cards, one sold; two charges");

      const onlyTokens = tableRows((await portal.get("/portal/payments?type=token")).html);
      assert.deepEqual(
        onlyTokens.map((r) => r.source),
        ["token", "token"],
      );
      const onlyLinks = tableRows((await portal.get("/portal/payments?type=link")).html);
      assert.ok(onlyLinks.length === 3 && onlyLinks.every((r) => r.source === "link"));
      const declined = tableRows((await portal.get("/portal/payments?type=token&result=declined")).html);
      assert.equal(declined.length, 1);
      assert.match(declined[0]!.row, /renewal-0042/);
      for (const search of ["invoice-77", "INVOICE-7781", approved.payfacReference, approved.checkoutReference]) {
        const found = tableRows((await portal.get(`/portal/payments?search=${encodeURIComponent(search)}`)).html);
        assert.equal(found.length, 1, search);
        assert.match(found[0]!.row, /invoice-7781/, search);
      }
      const link = tableRows((await portal.get(`/portal/payments?search=${sale.linkReference}`)).html);
      assert.deepEqual(
        link.map((r) => r.source),
        ["link"],
      );
      assert.equal(tableRows((await portal.get("/portal/payments?search=%25")).html).length, 0, "a % is a character, not a wildcard");
      const unreadable = tableRows((await portal.get("/portal/payments?type=cash&result=maybe")).html);
      assert.equal(unreadable.length, 5, "filters that cannot be read filter nothing");
    });

    test("a charge's page: type, reference, card; refund half, too much refused, reverse the rest; the CSV and the webhooks show it", async () => {
      const path = `/portal/payments/${approved.checkoutReference}`;
      let page = await portal.get(path);
      assert.equal(page.status, 200);
      assert.match(page.text, /Type Saved card/);
      assert.match(page.text, /Your reference invoice-7781/);
      assert.match(page.text, new RegExp(approved.payfacReference));
      assert.match(page.text, /1111/);
      assert.match(page.text, /Amount to refund \(at most ISK 1,299\)/);

      const ok = await portal.post(`${path}/refund`, { amount: "600", refundReason: "CUSTOMER REQUEST", attempt: randomUUID() }, page);
      assert.equal(ok.status, 303, ok.text.slice(0, 300));
      page = await portal.get(path);
      assert.match(page.text, /Refund .* Customer.s request ISK 600 Refunded/);
      const tooMuch = await portal.post(`${path}/refund`, { amount: "1000", attempt: randomUUID() }, page);
      assert.equal(tooMuch.status, 400);
      assert.match(
        tooMuch.text,
        /Amount ISK 1,000 is more than what is left to refund of payment [0-9A-Z]{16}: ISK 699\./,
        "the API's 2019 message names what is left, in krónur",
      );

      const read = await server.api("GET", `/api/v1/payments/${approved.payfacReference}`);
      assert.equal(read.body.payment.refundedAmount, 60000, "the API reads the portal's refund");

      const today = new Date().toISOString().slice(0, 10);
      const csv = (await portal.get(`/portal/payments.csv?from=${today}&to=${today}`)).html.trim().split("\r\n");
      assert.equal(csv.length, 6, "header and five payments");
      assert.match(csv[0]!, /,refundedAmount,paymentType,merchantReference,amountMinorUnits,refundedMinorUnits,refundDates,shopperEmail$/);
      const row = csv.find((line) => line.includes(approved.checkoutReference))!.split(",");
      assert.deepEqual(row.slice(1), [
        approved.checkoutReference,
        approved.payfacReference,
        "",
        "",
        "1299",
        "ISK",
        "VI",
        "1111",
        "approved",
        "600",
        "savedCard",
        "invoice-7781",
        "129900",
        "60000",
        row[15],
        "",
      ]);
      assert.match(row[15]!, new RegExp(`^${today}T[\\d:.]+Z$`), "when the refund completed");
      assert.ok(csv.some((line) => line.includes(refused.checkoutReference) && line.includes(",declined,0,savedCard,renewal-0042,")));
      assert.ok(csv.some((line) => line.includes(sale.payfacReference) && line.includes(",linkSale,,")));

      const reversed = await portal.post(`${path}/reverse`, { attempt: randomUUID() }, page);
      assert.equal(reversed.status, 303);
      page = await portal.get(path);
      assert.match(page.text, /Reversal .* ISK 699 Refunded/);
      assert.doesNotMatch(page.html, /action="[^"]*\/refund"/, "nothing is left to refund");
      assert.equal((await server.api("GET", `/api/v1/payments/${approved.payfacReference}`)).body.payment.refundedAmount, 129900);

      const log = await portal.get(`/portal/developers/webhooks/${webhookId}`);
      assert.equal((log.html.match(/data-event="Refund"/g) ?? []).length, 2, "one Refund webhook per refund");
    });

    test("a declined charge's page offers no refund, and a refund posted anyway is refused", async () => {
      const path = `/portal/payments/${refused.checkoutReference}`;
      const page = await portal.get(path);
      assert.equal(page.status, 200);
      assert.match(page.text, /Declined/);
      assert.match(page.text, /Not enough balance/);
      assert.doesNotMatch(page.html, /action="[^"]*\/refund"/);
      const posted = await portal.post(`${path}/refund`, { amount: "100", attempt: randomUUID(), csrf: await portal.csrf() });
      assert.equal(posted.status, 400);
      assert.match(posted.text, /not authorised/);
    });
  });
}
