// Every page of the hosted checkout in Chromium, at 375 px and at desktop width, in each state a
// shopper meets it in: the pay page, its field errors, a declined card, the receipt, a save-card
// page, a link that is used up and one that does not exist. No serious or critical axe violation,
// no sideways scroll, no console error; a screenshot of each. On the first backend only: the
// pages do not depend on the database.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { launchChromium, skipWithoutChromium } from "../support/browser.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { checkPage, DESKTOP, PHONE, watchedPage } from "../support/page-checks.ts";
import { CARDS, createLink, futureExpiry } from "../support/shopper.ts";

describe("checkout pages in Chromium", { skip: skipWithoutChromium }, () => {
  let server: TestServer;
  let browser: Browser;
  before(async () => {
    server = await startTestServer();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  /** Presses the pay (or save) button and waits for the page the answer is. */
  async function submit(page: Page): Promise<number> {
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === "POST"),
      page.locator("button.pay").click(),
    ]);
    await page.waitForLoadState();
    return response.status();
  }

  async function fillCard(page: Page, number: string): Promise<void> {
    await page.getByLabel("Card number").fill(number);
    await page.getByLabel("Expiry date").fill(futureExpiry());
    await page.getByLabel("Security code").fill("737");
  }

  for (const [size, viewport] of [
    ["phone", PHONE],
    ["desktop", DESKTOP],
  ] as const) {
    test(`every checkout page on a ${size}: accessible, no sideways scroll, no console error`, async () => {
      // 422 (field errors), 402 (declined), 410 (used up), 404 (unknown): answers asked for on purpose.
      const { context, page, problems } = await watchedPage(browser, viewport, { expectedStatuses: [402, 404, 410, 422] });
      try {
        const reference = await createLink(server, {
          culture: "en",
          description: "not shown to the shopper",
          exactSalesCount: 1,
          items: [
            {
              name: "Lopapeysa, handprjónuð úr íslenskri ull",
              quantity: 1,
              unitPrice: 1090000,
              amountWithoutDiscount: 1090000,
              amount: 1090000,
            },
            { name: "Ullarsokkar", quantity: 2, unitPrice: 49000, amountWithoutDiscount: 98000, amount: 88000 },
          ],
          amount: 1178000,
          shopperInfo: [
            { field: "FullName", requirementType: "Required" },
            { field: "EmailAddress", requirementType: "Optional" },
          ],
        });
        await page.goto(`${server.baseUrl}/pay/${reference}`);
        await checkPage(page, "checkout-pay-page");
        assert.equal(await submit(page), 422);
        assert.equal(await page.locator("#cardNumber-error").textContent(), "Enter your card number.");
        await checkPage(page, "checkout-pay-page-errors");

        await page.getByLabel("Full name").fill("Björn Björnsson");
        await fillCard(page, CARDS.refused);
        assert.equal(await submit(page), 402);
        await checkPage(page, "checkout-declined");

        await fillCard(page, CARDS.visa);
        assert.equal(await submit(page), 200);
        assert.equal(await page.locator("h1").textContent(), "Payment successful");
        await checkPage(page, "checkout-receipt");

        assert.equal((await page.goto(`${server.baseUrl}/pay/${reference}`))!.status(), 410);
        await checkPage(page, "checkout-used-up");
        assert.equal((await page.goto(`${server.baseUrl}/pay/NoSuchLink000000`))!.status(), 404);
        await checkPage(page, "checkout-not-found");

        const tokenize = await createLink(server, { type: "TokenizeByLink", amount: 0, items: [], culture: "is" });
        await page.goto(`${server.baseUrl}/pay/${tokenize}`);
        await checkPage(page, "checkout-save-card");
        await page.getByLabel("Kortanúmer").fill(CARDS.visa);
        await page.getByLabel("Gildistími").fill(futureExpiry());
        await page.getByLabel("Öryggiskóði").fill("737");
        assert.equal(await submit(page), 200);
        await checkPage(page, "checkout-card-saved");
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }
});
