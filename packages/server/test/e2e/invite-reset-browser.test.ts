// Invitations and password reset in Chromium, at 375 px and 1280 px, in Icelandic and English: an
// owner invites from the users page, the invitee opens the link from the e-mail the SMTP server
// received, chooses a password and is signed in; a user resets a forgotten password from the
// e-mail's link and signs in with it. Each page is axe clean (moderate included) without sideways
// scroll. Screenshots go to docs/screenshots/accounts/ (dates on them under a grey bar, so an
// unchanged page writes the same image). What the pages show does not depend on the database: first backend only.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { type AccountMail, linkIn, startAccountMail } from "../support/account-mail.ts";
import { launchChromium, skipWithoutChromium } from "../support/browser.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { checkPage, DESKTOP, PHONE, watchedPage } from "../support/page-checks.ts";
import { addPortalUser, PORTAL_PASSWORD } from "../support/portal.ts";

const SHOTS = fileURLToPath(new URL("../../../../docs/screenshots/accounts/", import.meta.url));
const NEW_PASSWORD = "a much better password";

function check(page: Page, name: string): Promise<void> {
  return checkPage(page, name, { screenshots: SHOTS });
}

describe("invitations and password reset in Chromium", { skip: skipWithoutChromium }, () => {
  let server: TestServer;
  let browser: Browser;
  let mail: AccountMail;

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer();
    mail = await startAccountMail(server);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await mail?.close();
    await server?.close();
  });

  const runs = [
    { lang: "en", viewport: PHONE },
    { lang: "is", viewport: DESKTOP },
    { lang: "is", viewport: PHONE },
    { lang: "en", viewport: DESKTOP },
  ] as const;

  for (const { lang, viewport } of runs) {
    test(`${lang} at ${viewport.width}px: invite, accept from the e-mail, reset a forgotten password`, async () => {
      const t = (en: string, is: string) => (lang === "en" ? en : is);
      const tag = `${lang}-${viewport.width}`;
      const locale = lang === "is" ? "is-IS" : "en-GB";
      const owner = await addPortalUser(server, server, `owner-${tag}@example.com`, "owner");

      const o = await watchedPage(browser, viewport, { locale });
      await o.page.goto(`${server.baseUrl}/portal/sign-in?lang=${lang}`);
      await o.page.locator("#email").fill(owner.email);
      await o.page.locator("#password").fill(PORTAL_PASSWORD);
      await Promise.all([o.page.waitForURL(/\/portal\/overview$/), o.page.locator("form button[type=submit]").first().click()]);
      await o.page.goto(`${server.baseUrl}/portal/users`);
      const invitee = `invitee-${tag}@example.com`;
      await o.page.locator("#invite-email").fill(invitee);
      await o.page.locator("#invite-role").selectOption("developer");
      await Promise.all([
        o.page.waitForURL(/done=invited/),
        o.page.getByRole("button", { name: t("Send invitation", "Senda boð") }).click(),
      ]);
      assert.match(await o.page.locator(`[data-invitation="${invitee}"]`).innerText(), new RegExp(invitee));
      await check(o.page, `invite-users-${lang}`);
      await o.page.goto(`${server.baseUrl}/portal/users/invitations/${await invitationId(invitee)}/revoke`);
      await check(o.page, `invite-revoke-question-${lang}`);
      await o.context.close();

      const message = (await mail.deliver()).find((m) => m.to === invitee);
      assert.ok(message, "the invitation reached the SMTP server");
      const i = await watchedPage(browser, viewport, { locale, expectedStatuses: [410] });
      await i.page.goto(`${server.baseUrl}${linkIn(message, "invitations")}`);
      await check(i.page, `invite-accept-${lang}`);
      await i.page.locator("#password").fill(NEW_PASSWORD);
      await Promise.all([
        i.page.waitForURL(/\/portal\/overview$/),
        i.page.getByRole("button", { name: t("Create my account", "Stofna aðganginn") }).click(),
      ]);
      assert.match(await i.page.locator("body").innerText(), new RegExp(invitee));
      await i.page.goto(`${server.baseUrl}${linkIn(message, "invitations")}`);
      await check(i.page, `invite-used-${lang}`);
      assert.deepEqual(i.problems, []);
      await i.context.close();

      const forgetful = await addPortalUser(server, server, `forgetful-${tag}@example.com`, "viewer");
      const r = await watchedPage(browser, viewport, { locale });
      await r.page.goto(`${server.baseUrl}/portal/sign-in?lang=${lang}`);
      await check(r.page, `reset-sign-in-${lang}`);
      await Promise.all([
        r.page.waitForURL(/\/portal\/reset$/),
        r.page.getByRole("link", { name: t("Forgot your password?", "Gleymdirðu lykilorðinu?") }).click(),
      ]);
      await check(r.page, `reset-request-${lang}`);
      await r.page.locator("#email").fill(forgetful.email);
      await Promise.all([
        r.page.waitForURL(/done=sent/),
        r.page.getByRole("button", { name: t("Send the link", "Senda hlekkinn") }).click(),
      ]);
      await check(r.page, `reset-sent-${lang}`);
      const resetMail = (await mail.deliver()).find((m) => m.to === forgetful.email);
      assert.ok(resetMail, "the reset mail reached the SMTP server");
      await r.page.goto(`${server.baseUrl}${linkIn(resetMail, "reset")}`);
      await check(r.page, `reset-new-password-${lang}`);
      await r.page.locator("#password").fill(NEW_PASSWORD);
      await Promise.all([
        r.page.waitForURL(/notice=password-reset/),
        r.page.getByRole("button", { name: t("Set the new password", "Setja nýtt lykilorð") }).click(),
      ]);
      await check(r.page, `reset-done-${lang}`);
      await r.page.locator("#email").fill(forgetful.email);
      await r.page.locator("#password").fill(NEW_PASSWORD);
      await Promise.all([r.page.waitForURL(/\/portal\/overview$/), r.page.locator("form button[type=submit]").first().click()]);
      assert.deepEqual(r.problems, []);
      await r.context.close();
    });
  }

  async function invitationId(email: string): Promise<string> {
    return (await server.db.selectFrom("portal_invitations").select("id").where("email", "=", email).executeTakeFirstOrThrow()).id;
  }
});
