// The notifications page in Chromium, at 375 px and 1280 px, in both languages: axe finds nothing
// (moderate included), nothing scrolls sideways, and the form works without JavaScript.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { AxeBuilder } from "@axe-core/playwright";
import type { Browser } from "playwright-core";
import { launchChromium, skipWithoutChromium } from "../support/browser.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { checkPage, DESKTOP, PHONE, signInWithForm, watchedPage } from "../support/page-checks.ts";
import { addPortalUser } from "../support/portal.ts";

describe("notifications page in Chromium", { skip: skipWithoutChromium }, () => {
  let server: TestServer;
  let browser: Browser;
  before(async () => {
    server = await startTestServer();
    await addPortalUser(server, server, "owner@example.com");
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const [size, viewport] of [
    ["phone", PHONE],
    ["desktop", DESKTOP],
  ] as const) {
    test(`opt in and back, in both languages (${size})`, async () => {
      const { context, page, problems } = await watchedPage(browser, viewport);
      try {
        await signInWithForm(page, server.baseUrl, "owner@example.com");
        for (const lang of ["en", "is"] as const) {
          await page.goto(`${server.baseUrl}/portal/account/notifications?lang=${lang}`);
          const violations = (await new AxeBuilder({ page }).analyze()).violations;
          assert.deepEqual(
            violations.map((v) => `${v.impact} ${v.id}`),
            [],
            `axe (${lang})`,
          );
          await checkPage(page, `portal-notifications-${lang}`);
        }
        await page.goto(`${server.baseUrl}/portal/account/notifications?lang=en`);
        await page.getByLabel(/E-mail me each time a payment is approved/).check();
        await page.getByLabel("Íslenska").check();
        await Promise.all([page.waitForURL(/saved=1$/), page.getByRole("button", { name: "Save" }).click()]);
        assert.ok(await page.getByText("Settings saved.").isVisible());
        assert.ok(await page.getByLabel(/E-mail me each time a payment is approved/).isChecked());
        const violations = (await new AxeBuilder({ page }).analyze()).violations;
        assert.deepEqual(
          violations.map((v) => `${v.impact} ${v.id}`),
          [],
          "axe after saving",
        );
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }
});
