// Users, roles and two-factor sign-in in Chromium, at 375 px and 1280 px, in Icelandic and English:
// an owner signs in with a code from the authenticator app, sets support's refund limit and changes
// a role (which asks first); a viewer sees no button that changes anything; support refunds within
// the limit and is refused above it; the account page, the two-factor enrolment page and its QR
// code. Each page is axe clean (moderate included) without sideways scroll, and reloading each
// result page repeats nothing. Screenshots go to docs/screenshots/accounts/ for a person to look at.
// What the pages show does not depend on the database, so this runs on the first backend only.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { launchChromium, skipWithoutChromium } from "../support/browser.ts";
import { getLink } from "../support/fixtures.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { checkPage, DESKTOP, PHONE, watchedPage } from "../support/page-checks.ts";
import { addPortalUser, PORTAL_PASSWORD, PortalClient } from "../support/portal.ts";
import { createLink, pay } from "../support/shopper.ts";
import { codeFor, enrol } from "../support/two-factor.ts";

const SHOTS = fileURLToPath(new URL("../../../../docs/screenshots/accounts/", import.meta.url));

function checkAccountsPage(page: Page, name: string): Promise<void> {
  return checkPage(page, name, { screenshots: SHOTS });
}

/** The page's controls that would change something: every form but sign-out and the search filters, and question links. */
async function changingControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    for (const form of document.querySelectorAll("form")) {
      const action = new URL(form.action).pathname;
      if (action === "/portal/sign-out" || (form.method === "get" && ["/portal/links", "/portal/payments"].includes(action))) continue;
      found.push(`${form.method} ${action}`);
    }
    for (const a of document.querySelectorAll("a.button")) {
      const href = new URL((a as HTMLAnchorElement).href).pathname;
      if (/\/(new|edit|disable|revoke|reverse|refund|rotate|delete|remove|role)$/.test(href)) found.push(`link ${href}`);
    }
    return found;
  });
}

describe("users, roles and two-factor sign-in in Chromium", { skip: skipWithoutChromium }, () => {
  let server: TestServer;
  let browser: Browser;
  let paymentPath: string;

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer();
    const reference = await createLink(server, {
      description: "Lopapeysa",
      amount: 2_000_000,
      items: [{ name: "Lopapeysa", quantity: 1, unitPrice: 2_000_000, amountWithoutDiscount: 2_000_000, amount: 2_000_000 }],
    });
    await pay(server.baseUrl, reference);
    paymentPath = `/portal/payments/${(await getLink(server, reference)).submissions[0].checkoutReference}`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const runs = [
    { lang: "en", viewport: PHONE },
    { lang: "is", viewport: DESKTOP },
    { lang: "is", viewport: PHONE },
    { lang: "en", viewport: DESKTOP },
  ] as const;

  for (const { lang, viewport } of runs) {
    test(`${lang} at ${viewport.width}px: 2FA sign-in, role change asks first, viewer, support's limit`, async () => {
      const t = (en: string, is: string) => (lang === "en" ? en : is);
      const tag = `${lang}-${viewport.width}`;
      const owner = await addPortalUser(server, server, `owner-${tag}@example.com`, "owner");
      const setup = new PortalClient(server.baseUrl);
      await setup.signIn(owner.email, owner.password);
      const { secret } = await enrol(setup);
      const viewer = await addPortalUser(server, server, `viewer-${tag}@example.com`, "viewer");
      const support = await addPortalUser(server, server, `support-${tag}@example.com`, "support");

      // The owner signs in with the password, then the code.
      const o = await watchedPage(browser, viewport, { locale: lang === "is" ? "is-IS" : "en-GB", expectedStatuses: [403] });
      await o.page.goto(`${server.baseUrl}/portal/sign-in?lang=${lang}`);
      await o.page.locator("#email").fill(owner.email);
      await o.page.locator("#password").fill(PORTAL_PASSWORD);
      await Promise.all([o.page.waitForURL(/\/portal\/sign-in\/code/), o.page.locator("form button[type=submit]").first().click()]);
      await checkAccountsPage(o.page, `sign-in-code-${lang}`);
      await o.page.locator("#code").fill(codeFor(secret, 1));
      await Promise.all([o.page.waitForURL(/\/portal\/overview$/), o.page.locator("#code").press("Enter")]);

      // Support's refund limit, set on the users page; the result page repeats nothing on reload.
      await o.page.goto(`${server.baseUrl}/portal/users`);
      await checkAccountsPage(o.page, `users-${lang}`);
      await o.page.locator("#limit-currency").fill("ISK");
      await o.page.locator("#limit-amount").fill("5000");
      await Promise.all([o.page.waitForURL(/done=limit/), o.page.getByRole("button", { name: t("Set limit", "Setja hámark") }).click()]);
      await o.page.reload();
      assert.match(await o.page.locator("[data-refund-limits]").innerText(), /5[.,]000/);

      // A role change asks first; the result page says so and a reload changes nothing more.
      const roleSelect = o.page.locator(`tr[data-user="${viewer.email}"] select`);
      await roleSelect.selectOption("developer");
      await Promise.all([
        o.page.waitForURL(/\/role\?role=developer/),
        o.page
          .locator(`tr[data-user="${viewer.email}"]`)
          .getByRole("button", { name: t("Change role", "Breyta hlutverki") })
          .click(),
      ]);
      await checkAccountsPage(o.page, `confirm-role-${lang}`);
      assert.equal(await o.page.locator(`[data-confirm]`).count(), 1);
      const roleNow = async () =>
        (await server.db.selectFrom("portal_users").select("role").where("email", "=", viewer.email).executeTakeFirstOrThrow()).role;
      assert.equal(await roleNow(), "viewer", "asking changed nothing");
      await Promise.all([o.page.waitForURL(/done=role-changed/), o.page.locator("[data-confirm] button[type=submit]").click()]);
      assert.equal(await roleNow(), "developer");
      await checkAccountsPage(o.page, `role-changed-${lang}`);
      // Back to viewer through the database, then a reload of the result page: still viewer.
      await server.db.updateTable("portal_users").set({ role: "viewer" }).where("email", "=", viewer.email).execute();
      await o.page.reload();
      assert.equal(await roleNow(), "viewer", "reloading the result page repeats nothing");

      // The account page and its sessions.
      await o.page.goto(`${server.baseUrl}/portal/account`);
      await checkAccountsPage(o.page, `account-${lang}`);
      await o.context.close();

      // A viewer sees nothing that changes anything; their enrolment page shows the QR code.
      const v = await watchedPage(browser, viewport, { locale: lang === "is" ? "is-IS" : "en-GB" });
      await v.page.goto(`${server.baseUrl}/portal/sign-in?lang=${lang}`);
      await v.page.locator("#email").fill(viewer.email);
      await v.page.locator("#password").fill(PORTAL_PASSWORD);
      await Promise.all([v.page.waitForURL(/\/portal\/overview$/), v.page.locator("#password").press("Enter")]);
      for (const path of ["/portal/overview", "/portal/links", paymentPath, "/portal/developers", "/portal/themes"]) {
        await v.page.goto(`${server.baseUrl}${path}`);
        assert.deepEqual(await changingControls(v.page), [], `${path} for a viewer`);
      }
      await v.page.goto(`${server.baseUrl}${paymentPath}`);
      await checkAccountsPage(v.page, `payment-viewer-${lang}`);
      await v.page.goto(`${server.baseUrl}/portal/account/two-factor`);
      await Promise.all([v.page.waitForURL(/\/two-factor$/), v.page.locator("form[action$='/start'] button").click()]);
      assert.equal(await v.page.locator(".qr svg").count(), 1);
      await checkAccountsPage(v.page, `two-factor-enrol-${lang}`);
      assert.deepEqual(v.problems, []);
      await v.context.close();

      // Support refunds within the limit (asking first), and is refused above it.
      const s = await watchedPage(browser, viewport, { locale: lang === "is" ? "is-IS" : "en-GB", expectedStatuses: [403] });
      await s.page.goto(`${server.baseUrl}/portal/sign-in?lang=${lang}`);
      await s.page.locator("#email").fill(support.email);
      await s.page.locator("#password").fill(PORTAL_PASSWORD);
      await Promise.all([s.page.waitForURL(/\/portal\/overview$/), s.page.locator("#password").press("Enter")]);
      await s.page.goto(`${server.baseUrl}${paymentPath}`);
      assert.equal(await s.page.locator("a.button[href$='/reverse']").count(), 0, "support has no reverse button");
      const refundCount = async () => (await server.db.selectFrom("refunds").select("created_at").execute()).length;
      const before = await refundCount();
      await s.page.locator("#refund-amount").fill("1000");
      await Promise.all([s.page.waitForURL(/\/refund\?/), s.page.locator("#refund-amount").press("Enter")]);
      await checkAccountsPage(s.page, `confirm-refund-support-${lang}`);
      await Promise.all([s.page.waitForURL(/refunded=1/), s.page.locator("[data-confirm] button[type=submit]").click()]);
      assert.equal(await refundCount(), before + 1);
      await s.page.reload();
      assert.equal(await refundCount(), before + 1, "reloading the result page refunds nothing more");
      await s.page.locator("#refund-amount").fill("6000");
      await Promise.all([s.page.waitForURL(/\/refund\?/), s.page.locator("#refund-amount").press("Enter")]);
      assert.match(
        await s.page.locator("[role=alert]").innerText(),
        lang === "en" ? /more than your role may refund at once/ : /meira en hlutverk þitt má endurgreiða/,
      );
      await checkAccountsPage(s.page, `refund-over-limit-${lang}`);
      assert.equal(await refundCount(), before + 1);
      assert.deepEqual(s.problems, []);
      await s.context.close();
      assert.deepEqual(o.problems, []);
    });
  }
});
