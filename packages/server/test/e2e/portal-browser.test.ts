// The portal in Chromium: sign in through the form, then every main page at 375 px and at desktop
// width: no serious or critical axe violation, no horizontal scroll on the phone, no console
// error; a screenshot of each in the screenshot folder; sign out.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { AxeBuilder } from "@axe-core/playwright";
import type { Browser } from "playwright-core";
import { launchChromium, SCREENSHOTS, skipWithoutChromium } from "../support/browser.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { addPortalUser, PORTAL_PASSWORD } from "../support/portal.ts";
import { createLink, pay } from "../support/shopper.ts";

describe("portal in Chromium", { skip: skipWithoutChromium }, () => {
  let server: TestServer;
  let browser: Browser;
  before(async () => {
    server = await startTestServer();
    await addPortalUser(server, server, "owner@example.com");
    const link = await createLink(server, { description: "Lopapeysa order" });
    await pay(server.baseUrl, link);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test("every main page is accessible, fits a phone and logs no error", async () => {
    for (const [name, viewport] of [
      ["phone", { width: 375, height: 812 }],
      ["desktop", { width: 1280, height: 900 }],
    ] as const) {
      const context = await browser.newContext({ viewport, locale: "en-GB" });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error" && !/status of 40[14]/.test(message.text())) problems.push(message.text());
      });
      page.on("pageerror", (error) => problems.push(error.message));
      await page.goto(`${server.baseUrl}/portal/sign-in`);
      await page.fill("#email", "owner@example.com");
      await page.fill("#password", PORTAL_PASSWORD);
      await Promise.all([page.waitForURL(/\/portal\/overview$/), page.click("button[type=submit]:has-text('Sign in')")]);
      for (const path of [
        "/portal/overview",
        "/portal/links",
        "/portal/links/new",
        "/portal/payments",
        "/portal/developers",
        "/portal/themes",
      ]) {
        await page.goto(`${server.baseUrl}${path}`);
        await page.screenshot({ path: `${SCREENSHOTS}portal${path.replace(/\//g, "-")}-${name}.png`, fullPage: true });
        const wide = await page.evaluate(() =>
          [...document.querySelectorAll("body *")]
            .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
            .map((e) => `${e.tagName}.${e.className}`)
            .slice(0, 5)
            .join(" "),
        );
        const results = await new AxeBuilder({ page }).analyze();
        const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
        assert.deepEqual(
          serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
          [],
          `${path} (${name})`,
        );
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `${path} scrolls sideways by ${overflow}px at ${viewport.width}px: ${wide}`);
      }
      await Promise.all([page.waitForURL(/sign-in\?notice=signed-out/), page.click("button:has-text('Sign out')")]);
      assert.deepEqual(problems, []);
      await context.close();
    }
  });
});
