// The terminal's processor page in Chromium (docs/portal.md#developers), at 375 px with
// JavaScript and at 1280 px without it, in English and Icelandic: axe (with JavaScript) finds nothing, moderate
// included; nothing scrolls sideways; an owner goes from the Developers page through both steps, a
// refused setting is shown beside its field, and saving leads back to Developers. What the page
// shows does not depend on the database, so this runs on the first backend only.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { launchChromium, skipWithoutChromium } from "../support/browser.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { checkPage, DESKTOP, PHONE, signInWithForm, watchedPage } from "../support/page-checks.ts";
import { addPortalUser } from "../support/portal.ts";

const EMAIL = "owner-processor@example.com";
const HMAC_KEY = "00112233445566778899aabbccddeeff00112233445566778899aabbccddee01";

describe("the terminal's processor page in Chromium", { skip: skipWithoutChromium }, () => {
  let server: TestServer;
  let browser: Browser;

  before(async () => {
    server = await startTestServer();
    await addPortalUser(server, server, EMAIL);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const [size, viewport, javaScript] of [
    ["phone", PHONE, true],
    ["desktop", DESKTOP, false],
  ] as const) {
    test(`on a ${size} (JavaScript ${javaScript ? "on" : "off"}): both steps, a problem beside its field, saved`, async () => {
      const { context, page, problems } = await watchedPage(browser, viewport, { javaScript, expectedStatuses: [400] });
      // axe runs in the page: without JavaScript the steps are walked, not checked.
      const check = (name: string) => (javaScript ? checkPage(page, name) : Promise.resolve());
      try {
        await signInWithForm(page, server.baseUrl, EMAIL);
        await page.goto(`${server.baseUrl}/portal/developers?lang=en`);
        await page.getByRole("link", { name: "Change processor: Test terminal" }).click();
        await check("terminal-processor-type-en");
        await page.getByLabel("Straumur (live gateway)").check();
        await page.getByRole("button", { name: "Continue" }).click();
        await page.waitForURL(/\?type=straumur$/);
        await check("terminal-processor-straumur-en");

        await page.getByLabel("Environment").selectOption("test");
        await page.getByLabel("API key").fill("browser-api-key-1234");
        await page.getByLabel("Terminal at the gateway (12 characters)").fill("abcdef123456");
        await page.getByLabel("HMAC key (hexadecimal)").fill("xyz");
        await page.getByRole("button", { name: "Save processor" }).click();
        await page.waitForSelector("#processor-hmacKey-error");
        await check("terminal-processor-problem-en");
        assert.equal(await page.getByLabel("Terminal at the gateway (12 characters)").inputValue(), "abcdef123456");
        assert.equal(await page.getByLabel("API key").inputValue(), "", "a secret is typed again, never sent back");

        await page.getByLabel("API key").fill("browser-api-key-1234");
        await page.getByLabel("HMAC key (hexadecimal)").fill(HMAC_KEY);
        await page.getByRole("button", { name: "Save processor" }).click();
        await page.waitForURL(/\/portal\/developers\?done=processor-changed$/);
        assert.match((await page.getByRole("status").first().textContent()) ?? "", /processor was changed/);

        await page.goto(`${server.baseUrl}/portal/developers/terminals/${server.terminalIdentifier}/processor?type=straumur&lang=is`);
        await check("terminal-processor-straumur-is");
        await page.goto(`${server.baseUrl}/portal/developers/terminals/${server.terminalIdentifier}/processor?type=sandbox&lang=is`);
        await check("terminal-processor-sandbox-is");
        await page.getByRole("button", { name: "Nota sandkassann" }).click();
        await page.waitForURL(/\/portal\/developers\?done=processor-changed$/);
        await page.goto(`${server.baseUrl}/portal/overview?lang=en`);
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }
});
