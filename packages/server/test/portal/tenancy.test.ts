// Payments, CSV, tenancy and CSRF of the portal over real HTTP on both databases: merchant A sees
// its payments and exports them; every portal URL of merchant B's objects is a 404 for A with
// nothing of B in it; and every state-changing portal request without the CSRF token is refused
// with nothing changed.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createApiKey, createTheme } from "../../src/db/merchants-repository.ts";
import { createWebhookEndpoint, listWebhookEndpoints } from "../../src/db/webhook-endpoints-repository.ts";
import { enqueueTestMessage } from "../../src/webhooks/test-message.ts";
import { chargeBody, saveCard } from "../support/after-sale.ts";
import { testBackends } from "../support/databases.ts";
import { getLink } from "../support/fixtures.ts";
import type { MerchantFixture, TestServer } from "../support/harness.ts";
import { startTestServer } from "../support/harness.ts";
import { testKeyring } from "../support/keyring.ts";
import { type PortalClient, signedIn } from "../support/portal.ts";
import { CARDS, cardFields, createLink, pay } from "../support/shopper.ts";

interface Objects {
  link: string;
  payment: string;
  /** A charge of a saved card (POST /api/v1/payment): its checkoutReference and payfacReference. */
  tokenPayment: string;
  tokenPayfacReference: string;
  keyId: string;
  webhookId: string;
  deliveryId: string;
  themeKey: string;
}

/** A link with one approved payment, a saved card charged once, an endpoint with a delivery, an extra key and a theme. */
async function objectsOf(server: TestServer, merchant: MerchantFixture): Promise<Objects> {
  const link = await createLink({ ...merchant, baseUrl: server.baseUrl }, { description: `Link of ${merchant.merchantId}` });
  const payment = (await pay(server.baseUrl, link)).html;
  assert.match(payment, /Lopapeysa|489/);
  const paymentId = (await getLink(server, link, { "x-api-key": merchant.apiKey })).submissions[0].checkoutReference as string;
  const asMerchant = { "x-api-key": merchant.apiKey };
  const shop = { ...merchant, baseUrl: server.baseUrl, api: server.api.bind(server) };
  const token = await saveCard(shop, undefined, asMerchant);
  const charged = await server.api(
    "POST",
    "/api/v1/payment",
    chargeBody(merchant, token, { reference: `order-${merchant.merchantId}` }),
    asMerchant,
  );
  assert.equal(charged.body.resultCode, "Authorised", JSON.stringify(charged.body));
  const { endpoint } = await createWebhookEndpoint(server.db, testKeyring(), merchant.merchantId, {
    url: `https://hooks.example.com/${merchant.merchantId}`,
  });
  const deliveryId = (await enqueueTestMessage(server.db, merchant.merchantId, endpoint.webhookId))!;
  const { keyId } = await createApiKey(server.db, merchant.merchantId, "Extra key");
  const theme = await createTheme(server.db, merchant.merchantId, { name: "B theme", primaryColor: "#aa0000", logoUrl: null });
  return {
    link,
    payment: paymentId,
    tokenPayment: charged.body.checkoutReference,
    tokenPayfacReference: charged.body.payfacReference,
    keyId,
    webhookId: endpoint.webhookId,
    deliveryId,
    themeKey: theme.themeKey,
  };
}

for (const backend of testBackends()) {
  describe(`portal payments, tenancy and CSRF (${backend.name})`, () => {
    let server: TestServer;
    let a: PortalClient;
    let b: MerchantFixture;
    let ofA: Objects;
    let ofB: Objects;
    before(async () => {
      server = await startTestServer({ backend });
      b = await server.addMerchant();
      a = await signedIn(server, server, "a@example.com");
      ofA = await objectsOf(server, server);
      ofB = await objectsOf(server, b);
      const declined = await createLink(server, { description: "declined one" });
      await pay(server.baseUrl, declined, cardFields(CARDS.refused));
    });
    after(() => server?.close());

    test("payments: the list, a payment's page and the CSV of a date range", async () => {
      const list = await a.get("/portal/payments");
      assert.equal(list.status, 200);
      assert.match(list.text, /Approved/);
      assert.match(list.text, /Declined/);
      const page = await a.get(`/portal/payments/${ofA.payment}`);
      assert.equal(page.status, 200);
      assert.match(page.text, new RegExp(ofA.payment));
      assert.match(page.text, /1111/);
      const tokenPage = await a.get(`/portal/payments/${ofA.tokenPayment}`);
      assert.equal(tokenPage.status, 200);
      assert.match(tokenPage.text, /Saved card/);
      assert.match(tokenPage.text, new RegExp(`order-${server.merchantId}`));
      const today = new Date().toISOString().slice(0, 10);
      const csv = await a.get(`/portal/payments.csv?from=${today}&to=${today}`);
      assert.equal(csv.status, 200);
      assert.match(csv.headers.get("content-type") ?? "", /^text\/csv/);
      const rows = csv.html.trim().split("\r\n");
      assert.equal(
        rows[0],
        "date,checkoutReference,payfacReference,paymentLinkReference,description,amount,currency,cardBrand,cardLast4,result,refundedAmount,paymentType,merchantReference,amountMinorUnits,refundedMinorUnits,refundDates,shopperEmail",
      );
      assert.equal(rows.length, 5, `the sale, the saved card's link payment, its charge, the declined one: ${csv.html}`);
      const approved = rows.find((row) => row.includes(ofA.payment))!.split(",");
      assert.deepEqual(approved.slice(3), [
        ofA.link,
        `Link of ${server.merchantId}`,
        "489",
        "ISK",
        "VI",
        "1111",
        "approved",
        "0",
        "linkSale",
        "",
        "48900",
        "0",
        "",
        "",
      ]);
      const charged = rows.find((row) => row.includes(ofA.tokenPayment))!.split(",");
      assert.deepEqual(charged.slice(2), [
        ofA.tokenPayfacReference,
        "",
        "",
        "1299",
        "ISK",
        "VI",
        "1111",
        "approved",
        "0",
        "savedCard",
        `order-${server.merchantId}`,
        "129900",
        "0",
        "",
        "",
      ]);
      assert.match(approved[0]!, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.ok(rows.some((row) => row.includes(",declined,0,linkSale,,")));
      const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      assert.equal((await a.get(`/portal/payments.csv?from=${yesterday}&to=${yesterday}`)).html.trim().split("\r\n").length, 1);
    });

    test("signed in as A, every portal URL of B's objects is 404 and shows nothing of B", async () => {
      const secretsOfB = (await listWebhookEndpoints(server.db, testKeyring(), b.merchantId)).map((e) => e.url);
      const csrf = await a.csrf();
      const gets = [
        `/portal/links/${ofB.link}`,
        `/portal/links/${ofB.link}/edit`,
        `/portal/payments/${ofB.payment}`,
        `/portal/payments/${ofB.tokenPayment}`,
        `/portal/developers/webhooks/${ofB.webhookId}`,
        `/portal/developers/api-keys/${ofB.keyId}/revoke`,
        `/portal/links/${ofB.link}/disable`,
        ...["disable", "delete", "rotate"].map((action) => `/portal/developers/webhooks/${ofB.webhookId}/${action}`),
        `/portal/themes/${ofB.themeKey}`,
      ];
      const posts = [
        `/portal/links/${ofB.link}/edit`,
        `/portal/links/${ofB.link}/disable`,
        `/portal/links/${ofB.link}/enable`,
        `/portal/developers/api-keys/${ofB.keyId}/revoke`,
        `/portal/developers/webhooks/${ofB.webhookId}`,
        ...["reveal", "rotate", "test", "disable", "enable", "delete"].map(
          (action) => `/portal/developers/webhooks/${ofB.webhookId}/${action}`,
        ),
        `/portal/developers/webhooks/${ofB.webhookId}/deliveries/${ofB.deliveryId}/resend`,
        `/portal/developers/webhooks/${ofA.webhookId}/deliveries/${ofB.deliveryId}/resend`,
        `/portal/themes/${ofB.themeKey}`,
        ...[ofB.payment, ofB.tokenPayment].flatMap((id) => [`/portal/payments/${id}/refund`, `/portal/payments/${id}/reverse`]),
      ];
      const answers = [
        ...(await Promise.all(gets.map(async (path) => ({ path, page: await a.get(path) })))),
        ...(await Promise.all(posts.map(async (path) => ({ path, page: await a.post(path, { csrf, url: "https://x.example.com" }) })))),
      ];
      for (const { path, page } of answers) {
        assert.equal(page.status, 404, path);
        for (const secret of [
          ofB.link,
          ofB.payment,
          ofB.tokenPayment,
          ofB.tokenPayfacReference,
          b.merchantId,
          b.terminalIdentifier,
          "B theme",
          ...secretsOfB,
        ]) {
          assert.ok(!page.html.includes(secret), `${path} shows ${secret}`);
        }
      }
      const today = new Date().toISOString().slice(0, 10);
      const csv = await a.get(`/portal/payments.csv?from=${today}&to=${today}`);
      for (const secret of [ofB.payment, ofB.link, ofB.tokenPayment, b.merchantId]) {
        assert.ok(!csv.html.includes(secret), `A's CSV holds none of B's payments: ${secret}`);
      }
      for (const page of [
        await a.get("/portal/links"),
        await a.get("/portal/overview"),
        await a.get("/portal/developers"),
        await a.get("/portal/payments"),
      ]) {
        for (const secret of [ofB.link, ofB.payment, ofB.tokenPayment, b.terminalIdentifier, ...secretsOfB]) {
          assert.ok(!page.html.includes(secret), secret);
        }
      }
      for (const search of [ofB.tokenPayment, ofB.tokenPayfacReference, `order-${b.merchantId}`, ofB.link]) {
        const found = await a.get(`/portal/payments?search=${encodeURIComponent(search)}`);
        assert.doesNotMatch(found.html, /data-source=/, `searching for B's ${search} finds nothing`);
      }
      // B's objects are untouched: nothing of its payments was refunded.
      for (const payfacReference of [ofB.tokenPayfacReference]) {
        const read = await server.api("GET", `/api/v1/payments/${payfacReference}`, undefined, { "x-api-key": b.apiKey });
        assert.equal(read.status, 200);
        assert.deepEqual(read.body.payment.refunds, []);
      }
      assert.equal((await getLink(server, ofB.link, { "x-api-key": b.apiKey })).submissions[0].refundedAmount, 0);
      assert.equal((await getLink(server, ofB.link, { "x-api-key": b.apiKey })).status, "Active");
      assert.equal((await listWebhookEndpoints(server.db, testKeyring(), b.merchantId)).length, 1);
    });

    test("every state-changing portal request without the session's CSRF token is refused (403) and changes nothing", async () => {
      const posts: Array<[string, Record<string, string>]> = [
        ["/portal/links/new", { type: "PayByLink", terminalIdentifier: server.terminalIdentifier, currency: "ISK", amount: "100" }],
        [`/portal/links/${ofA.link}/edit`, { currency: "ISK", amount: "100", description: "changed" }],
        [`/portal/links/${ofA.link}/disable`, {}],
        [`/portal/links/${ofA.link}/enable`, {}],
        ["/portal/developers/api-keys", { name: "sneaky" }],
        [`/portal/developers/api-keys/${ofA.keyId}/revoke`, {}],
        ["/portal/developers/webhooks", { url: "https://evil.example.com" }],
        [`/portal/developers/webhooks/${ofA.webhookId}`, { url: "https://evil.example.com" }],
        ...["reveal", "rotate", "test", "disable", "enable", "delete"].map((action): [string, Record<string, string>] => [
          `/portal/developers/webhooks/${ofA.webhookId}/${action}`,
          {},
        ]),
        [`/portal/developers/webhooks/${ofA.webhookId}/deliveries/${ofA.deliveryId}/resend`, {}],
        ["/portal/themes", { name: "sneaky", primaryColor: "#000000" }],
        [`/portal/themes/${ofA.themeKey}`, { name: "sneaky", primaryColor: "#000000" }],
        ...[ofA.payment, ofA.tokenPayment].flatMap(
          (id): Array<[string, Record<string, string>]> => [
            [`/portal/payments/${id}/refund`, { amount: "100", refundReason: "OTHER" }],
            [`/portal/payments/${id}/reverse`, {}],
          ],
        ),
        ["/portal/sign-out", {}],
      ];
      const linksBefore = (await server.api("GET", "/api/v1/paymentlinks")).body.totalCount;
      for (const [path, fields] of posts) {
        for (const token of [undefined, "wrong-token-wrong-token-wrong-token-wrong-t"]) {
          const page = await a.post(path, token ? { ...fields, csrf: token } : fields);
          assert.equal(page.status, 403, `${path} with token ${token}`);
          assert.doesNotMatch(page.html, /class="secret"/, `${path} reveals nothing`);
        }
      }
      assert.equal((await server.api("GET", "/api/v1/paymentlinks")).body.totalCount, linksBefore);
      assert.equal((await getLink(server, ofA.link)).status, "Active");
      assert.equal((await getLink(server, ofA.link)).submissions[0].refundedAmount, 0, "no refund of the link sale");
      const tokenPayment = await server.api("GET", `/api/v1/payments/${ofA.tokenPayfacReference}`);
      assert.deepEqual(tokenPayment.body.payment.refunds, [], "no refund of the saved-card charge");
      assert.equal((await listWebhookEndpoints(server.db, testKeyring(), server.merchantId)).length, 1);
      assert.equal((await a.get("/portal/overview")).status, 200, "the session survived the refused sign-out");
    });
  });
}
