// Roles in the portal over real HTTP (docs/portal.md#users-and-roles): the server refuses every
// action a role may not do (403, nothing changed) whatever the page showed, and the pages show a
// viewer nothing that changes anything; developers manage keys, webhooks and themes; support
// refunds up to the merchant's limit and is refused above it.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createTheme } from "../../src/db/merchants-repository.ts";
import { setRefundLimit } from "../../src/db/portal-users-repository.ts";
import { createWebhookEndpoint } from "../../src/db/webhook-endpoints-repository.ts";
import { testBackends } from "../support/databases.ts";
import { getLink } from "../support/fixtures.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { testKeyring } from "../support/keyring.ts";
import { type PortalClient, signedIn } from "../support/portal.ts";
import { createLink, pay } from "../support/shopper.ts";

/** Every POST of the portal that changes the merchant's things (ids need not exist: the role is checked first). */
const CHANGING_POSTS = [
  "/portal/links/new",
  "/portal/links/x/edit",
  "/portal/links/x/disable",
  "/portal/links/x/enable",
  "/portal/payments/x/refund",
  "/portal/payments/x/reverse",
  "/portal/payments/x/capture",
  "/portal/developers/api-keys",
  "/portal/developers/api-keys/x/revoke",
  "/portal/developers/webhooks",
  "/portal/developers/webhooks/x",
  "/portal/developers/webhooks/x/enable",
  "/portal/developers/webhooks/x/disable",
  "/portal/developers/webhooks/x/delete",
  "/portal/developers/webhooks/x/reveal",
  "/portal/developers/webhooks/x/rotate",
  "/portal/developers/webhooks/x/test",
  "/portal/developers/webhooks/x/deliveries/y/resend",
  "/portal/themes",
  "/portal/themes/x",
  "/portal/users/x/role",
  "/portal/users/x/remove",
  "/portal/users/security",
  "/portal/users/refund-limit",
];

/** The forms and buttons of a page that would change something (the sign-out form and search forms change nothing). */
function changingControls(html: string): string[] {
  const found: string[] = [];
  for (const match of html.matchAll(/<form method="(get|post)" action="([^"]*)"/g)) {
    const [, method, action] = match;
    if (method === "post" && action !== "/portal/sign-out") found.push(`POST ${action}`);
    if (method === "get" && !["/portal/links", "/portal/payments"].includes(action!)) found.push(`GET form ${action}`);
  }
  for (const match of html.matchAll(/<a [^>]*href="([^"]*\/(new|edit|disable|revoke|reverse|refund|rotate|delete|remove|role))"/g)) {
    found.push(`link ${match[1]}`);
  }
  return found;
}

for (const backend of testBackends()) {
  describe(`portal roles (${backend.name})`, () => {
    let server: TestServer;
    let owner: PortalClient;
    let paymentPath: string;
    let linkReference: string;
    let webhookId: string;
    let themeKey: string;
    before(async () => {
      server = await startTestServer({ backend });
      owner = await signedIn(server, server, "owner@example.com", "owner");
      linkReference = await createLink(server, {
        amount: 1_000_000,
        items: [{ name: "Peysa", quantity: 1, unitPrice: 1_000_000, amountWithoutDiscount: 1_000_000, amount: 1_000_000 }],
      });
      await pay(server.baseUrl, linkReference);
      paymentPath = `/portal/payments/${(await getLink(server, linkReference)).submissions[0].checkoutReference}`;
      webhookId = (await createWebhookEndpoint(server.db, testKeyring(), server.merchantId, { url: "https://hooks.example.com/in" }))
        .endpoint.webhookId;
      themeKey = (await createTheme(server.db, server.merchantId, { name: "Blátt", primaryColor: "#1f4e8c", logoUrl: null })).themeKey;
    });
    after(() => server?.close());

    test("a viewer is refused every changing POST with 403, and nothing changed", async () => {
      const viewer = await signedIn(server, server, "viewer@example.com", "viewer");
      const csrf = await viewer.csrf();
      for (const path of CHANGING_POSTS) {
        const page = await viewer.post(path, { csrf, name: "Nýr", url: "https://evil.example.com/", amount: "1", role: "owner" });
        assert.equal(page.status, 403, `${path}: ${page.text.slice(0, 200)}`);
        assert.match(page.text, /Not allowed for your role/, path);
      }
      const developers = await owner.get("/portal/developers");
      assert.doesNotMatch(developers.html, /evil\.example\.com/, "no webhook was added");
      assert.equal((await owner.get(paymentPath)).text.includes("Refund ISK"), false, "nothing was refunded");
    });

    test("a viewer's pages show no form or button that changes anything, and no Users menu", async () => {
      const viewer = await signedIn(server, server, "viewer-pages@example.com", "viewer");
      const pages = [
        "/portal/overview",
        "/portal/links",
        `/portal/links/${linkReference}`,
        "/portal/payments",
        paymentPath,
        "/portal/developers",
        `/portal/developers/webhooks/${webhookId}`,
        "/portal/themes",
        `/portal/themes/${themeKey}`,
      ];
      for (const path of pages) {
        const page = await viewer.get(path);
        assert.equal(page.status, 200, path);
        assert.deepEqual(changingControls(page.html), [], path);
        assert.doesNotMatch(page.html, /href="\/portal\/users"/, `${path}: no Users menu`);
        assert.match(page.html, /href="\/portal\/account"/, `${path}: the Account menu`);
      }
      // The owner sees the same pages with their controls: the check above is not blind.
      assert.notDeepEqual(changingControls((await owner.get(paymentPath)).html), []);
      assert.notDeepEqual(changingControls((await owner.get(`/portal/links/${linkReference}`)).html), []);
      assert.notDeepEqual(changingControls((await owner.get("/portal/developers")).html), []);
      assert.match((await owner.get("/portal/overview")).html, /href="\/portal\/users"/);
      // The question pages are refused too, not only their forms.
      assert.equal((await viewer.get(`/portal/links/${linkReference}/disable`)).status, 403);
      assert.equal((await viewer.get(`${paymentPath}/refund?amount=1`)).status, 403);
      assert.equal((await viewer.get("/portal/users")).status, 403);
    });

    test("a developer manages API keys, webhooks and themes, and reads payments, but makes no links and no refunds", async () => {
      const developer = await signedIn(server, server, "developer@example.com", "developer");
      const page = await developer.get("/portal/developers");
      const created = await developer.post("/portal/developers/api-keys", { name: "CI" }, page);
      assert.equal(created.status, 303);
      assert.match((await developer.get(created.location!)).text, /CI/);
      const theme = await developer.get(`/portal/themes/${themeKey}`);
      assert.equal((await developer.post(`/portal/themes/${themeKey}`, { name: "Grænt", primaryColor: "#1f8c4e" }, theme)).status, 303);
      const payment = await developer.get(paymentPath);
      assert.equal(payment.status, 200);
      assert.doesNotMatch(payment.html, /\/refund"/, "no refund form");
      const csrf = await developer.csrf();
      assert.equal((await developer.post(`${paymentPath}/refund`, { csrf, amount: "1" })).status, 403);
      assert.equal((await developer.post("/portal/links/new", { csrf })).status, 403);
      assert.equal((await developer.get("/portal/links/new")).status, 403);
    });

    test("support refunds up to the limit, is refused above it and without one, and never reverses", async () => {
      const support = await signedIn(server, server, "support@example.com", "support");
      const payment = await support.get(paymentPath);
      assert.match(payment.html, /action="[^"]*\/refund"/, "support sees the refund form");
      assert.doesNotMatch(payment.html, /\/reverse"/, "but no reverse button");
      const noLimit = await support.get(`${paymentPath}/refund?amount=100&refundReason=OTHER`);
      assert.equal(noLimit.status, 403);
      assert.match(noLimit.text, /Your role may not refund in ISK: no refund limit is set for it/);

      // The owner sets the limit on the users page.
      const users = await owner.get("/portal/users");
      const limit = await owner.post("/portal/users/refund-limit", { currency: "isk", amount: "2000" }, users);
      assert.equal(limit.status, 303);
      assert.match((await owner.get(limit.location!)).text, /The refund limit was saved[\s\S]*ISK 2,000/);

      const asked = await support.get(`${paymentPath}/refund?amount=1500&refundReason=OTHER`);
      assert.equal(asked.status, 200, asked.text.slice(0, 300));
      const refunded = await support.post(`${paymentPath}/refund`, { amount: "1500", refundReason: "OTHER" }, asked);
      assert.equal(refunded.status, 303, refunded.text.slice(0, 300));

      const above = await support.get(`${paymentPath}/refund?amount=2001&refundReason=OTHER`);
      assert.equal(above.status, 403);
      assert.match(above.text, /That is more than your role may refund at once: at most ISK 2,000\. Ask an admin or an owner\./);
      // Posted straight, past the question: refused the same way, nothing refunded.
      const straight = await support.post(`${paymentPath}/refund`, { amount: "2001", refundReason: "OTHER" }, asked);
      assert.equal(straight.status, 403);
      const icelandic = await support.get(`${paymentPath}/refund?amount=5000&refundReason=OTHER&lang=is`);
      assert.match(icelandic.text, /Það er meira en hlutverk þitt má endurgreiða í einu/);
      const refunds =
        (await owner.get(paymentPath)).html.match(/<td class="num" data-label="Amount"><span>ISK [\d,]+<\/span><\/td>/g) ?? [];
      assert.deepEqual(
        refunds,
        ['<td class="num" data-label="Amount"><span>ISK 1,500</span></td>'],
        "only the refund within the limit happened",
      );

      const csrf = await support.csrf();
      assert.equal((await support.post(`${paymentPath}/reverse`, { csrf })).status, 403);
      assert.equal((await support.get(`${paymentPath}/reverse`)).status, 403);
      await setRefundLimit(server.db, server.merchantId, "ISK", null);
    });

    test("an admin manages everyone but owners and makes no owners", async () => {
      const admin = await signedIn(server, server, "admin@example.com", "admin");
      const users = await admin.get("/portal/users");
      assert.equal(users.status, 200);
      assert.doesNotMatch(users.html, /Security settings/, "the security settings are the owners'");
      const ownerRow = /<tr[^>]*data-user="owner@example.com"[\s\S]*?<\/tr>/.exec(users.html)![0];
      assert.deepEqual(changingControls(ownerRow), [], "no controls on an owner's row");
      assert.doesNotMatch(users.html, /<option value="owner"/, "owner is not offered");
      const ownerId = (
        await server.db.selectFrom("portal_users").select("id").where("email", "=", "owner@example.com").executeTakeFirstOrThrow()
      ).id;
      const csrf = await admin.csrf();
      const demote = await admin.post(`/portal/users/${ownerId}/role`, { csrf, role: "viewer" });
      assert.equal(demote.status, 403);
      const viewerId = (
        await server.db.selectFrom("portal_users").select("id").where("email", "=", "viewer@example.com").executeTakeFirstOrThrow()
      ).id;
      assert.equal((await admin.post(`/portal/users/${viewerId}/role`, { csrf, role: "owner" })).status, 403);
      assert.equal((await admin.post("/portal/users/security", { csrf, requireTwoFactor: "1" })).status, 403);
      const promoted = await admin.post(`/portal/users/${viewerId}/role`, { csrf, role: "support" });
      assert.equal(promoted.status, 303);
    });
  });
}
