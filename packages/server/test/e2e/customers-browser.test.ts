// The customers and saved-cards pages in Chromium (docs/portal.md#customers), at 375 px and 1280 px,
// in Icelandic and English: axe finds nothing, moderate included; nothing scrolls sideways; on a
// phone each row is a card with the card, its status and the amounts visible; charging a card goes
// through the question page without JavaScript. Screenshots go to docs/screenshots/customers/. What
// the pages show does not depend on the database, so this runs on the first backend only.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { customerId } from "../../src/portal/customer-id.ts";
import { charge, NO_BALANCE_CARD, refund, saveCardOf } from "../support/after-sale.ts";
import { launchChromium, skipWithoutChromium } from "../support/browser.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { checkPage, DESKTOP, PHONE, signInWithForm, watchedPage } from "../support/page-checks.ts";
import { addPortalUser } from "../support/portal.ts";

const SCREENSHOTS = fileURLToPath(new URL("../../../../docs/screenshots/customers/", import.meta.url));
const EMAIL = "owner@example.com";

describe("the customers and saved-cards pages in Chromium", { skip: skipWithoutChromium }, () => {
  let server: TestServer;
  let browser: Browser;
  let annaCard: string;
  let jonCard: string;

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    server = await startTestServer();
    await addPortalUser(server, server, EMAIL);
    const anna = await saveCardOf(server, { email: "anna.jonsdottir@example.com", name: "Anna Jónsdóttir" });
    annaCard = anna.checkoutReference;
    const charged = (await charge(server, anna.token, { amount: 1890000, reference: "askrift-2026-11" })).body;
    await refund(server, charged.payfacReference, 500000);
    await charge(server, anna.token, { amount: 1890000, reference: "askrift-2026-12" });
    jonCard = (await saveCardOf(server, { email: "jon@example.com", name: "Jón Pálsson" }, NO_BALANCE_CARD)).checkoutReference;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const check = (page: Page, name: string) => checkPage(page, name, { screenshots: SCREENSHOTS });

  for (const [size, viewport] of [
    ["phone", PHONE],
    ["desktop", DESKTOP],
  ] as const) {
    test(`on a ${size}, in Icelandic and English`, async () => {
      const { context, page, problems } = await watchedPage(browser, viewport);
      try {
        await signInWithForm(page, server.baseUrl, EMAIL);
        for (const lang of ["is", "en"] as const) {
          await page.goto(`${server.baseUrl}/portal/customers?lang=${lang}`);
          await check(page, `customers-${lang}`);
          assert.equal(await page.getByRole("heading", { level: 1 }).textContent(), lang === "is" ? "Viðskiptavinir" : "Customers");
          await page.goto(`${server.baseUrl}/portal/customers/${customerId({ kind: "email", value: "anna.jonsdottir@example.com" })}`);
          await check(page, `customer-${lang}`);
          const partly = page.getByText(lang === "is" ? "Endurgreitt að hluta" : "Partly refunded", { exact: true });
          assert.ok(await partly.first().isVisible(), "the partly refunded charge says so");
          const row = page.locator("table[data-payments] tbody tr").first();
          if (size === "phone") {
            assert.equal(await row.evaluate((r) => getComputedStyle(r).display), "block", "each payment is a card");
          }
          assert.ok(await row.locator("td.num").isVisible(), "the amount is visible");
          await page.goto(`${server.baseUrl}/portal/saved-cards`);
          await check(page, `saved-cards-${lang}`);
          assert.ok(await page.getByRole("link", { name: "Visa •••• 1111" }).isVisible());
        }
        // English from here: a charge through the question page, by the forms alone.
        await page.goto(`${server.baseUrl}/portal/saved-cards/${annaCard}`);
        await check(page, "saved-card-en");
        await page.getByLabel("Amount").fill("18,900");
        await page.getByLabel("Your reference (order or invoice number)").fill("askrift-2027-01");
        await Promise.all([page.waitForURL(/\/charge\?/), page.getByRole("button", { name: "Continue" }).click()]);
        await check(page, "charge-question-en");
        assert.ok(await page.getByRole("heading", { name: "Charge ISK 18,900 to Visa •••• 1111?" }).isVisible());
        await Promise.all([page.waitForURL(/charged=/), page.getByRole("button", { name: "Charge the card" }).click()]);
        assert.ok(await page.getByText("Charged ISK 18,900. The payment is approved.").isVisible());
        await check(page, "charge-approved-en");
        // A declined card, in Icelandic.
        await page.goto(`${server.baseUrl}/portal/saved-cards/${jonCard}?lang=is`);
        await page.getByLabel("Upphæð").fill("4.990");
        await page.getByLabel("Ykkar tilvísun (pöntunar- eða reikningsnúmer)").fill("askrift-jon");
        await Promise.all([page.waitForURL(/\/charge\?/), page.getByRole("button", { name: "Áfram" }).click()]);
        await Promise.all([page.waitForURL(/charged=/), page.getByRole("button", { name: "Færa á kortið" }).click()]);
        assert.ok(await page.getByText(/var hafnað: Ekki næg innstæða/).isVisible());
        await check(page, "charge-declined-is");
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }
});
