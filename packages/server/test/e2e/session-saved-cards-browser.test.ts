// A session page with the shopper's saved card (docs/api.md#hosted-checkout-sessions) in Chromium,
// at 375 px and at desktop width, in English and in Icelandic: the saved card is offered and
// chosen, the card fields are hidden while it is (no script: a stylesheet rule) and shown for
// "use a new card", and paying with it returns to the shop with checkoutReference. No serious or
// critical axe violation, no sideways scroll, no console error; a screenshot of each. On the first
// backend only: the page does not depend on the database.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { launchChromium, skipWithoutChromium } from "../support/browser.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { checkPage, DESKTOP, PHONE, watchedPage } from "../support/page-checks.ts";
import { createSession, paySession } from "../support/sessions.ts";
import { CARDS } from "../support/shopper.ts";

const LABELS = {
  en: { saved: /Visa ending in 1111/, newCard: "Use a new card", card: "Card number" },
  is: { saved: /Visa sem endar á 1111/, newCard: "Nota nýtt kort", card: "Kortanúmer" },
} as const;

describe("a session page with saved cards in Chromium", { skip: skipWithoutChromium }, () => {
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

  for (const [size, viewport] of [
    ["phone", PHONE],
    ["desktop", DESKTOP],
  ] as const) {
    for (const lang of ["en", "is"] as const) {
      test(`saved cards on a ${size} in ${lang}: offered, chosen, paid; accessible, no sideways scroll`, async () => {
        const { context, page, problems } = await watchedPage(browser, viewport, { expectedStatuses: [404] });
        const label = LABELS[lang];
        const shopper = `shopper-${size}-${lang}`;
        try {
          const saver = await createSession(server, {
            culture: lang,
            recurringProcessingModel: "CardOnFile",
            merchantShopperReference: shopper,
          });
          assert.equal((await paySession(server.baseUrl, saver.checkoutReference, CARDS.visa)).status, 303);

          const returnUrl = `${server.baseUrl}/healthz?order=2001`;
          const { url, checkoutReference } = await createSession(server, {
            culture: lang,
            returnUrl,
            reference: "2001",
            merchantShopperReference: shopper,
          });
          await page.goto(url);
          const saved = page.getByRole("radio", { name: label.saved });
          assert.equal(await saved.isChecked(), true, "the saved card is chosen first");
          assert.equal(await page.getByLabel(label.card).isVisible(), false, "no card fields while a saved card is chosen");
          await checkPage(page, `session-saved-card-${size}-${lang}`);

          await page.getByRole("radio", { name: label.newCard }).check();
          assert.equal(await page.getByLabel(label.card).isVisible(), true, "a new card shows the card fields");
          await checkPage(page, `session-saved-card-new-${size}-${lang}`);

          await saved.check();
          const [response] = await Promise.all([
            page.waitForResponse((r) => r.request().method() === "POST"),
            page.locator("button.pay").click(),
          ]);
          await page.waitForLoadState();
          assert.equal(response.status(), 303);
          assert.equal(page.url(), `${returnUrl}&checkoutReference=${checkoutReference}`);
          assert.deepEqual(problems, []);
        } finally {
          await context.close();
        }
      });
    }
  }
});
