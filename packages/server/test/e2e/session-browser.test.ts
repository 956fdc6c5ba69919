// A hosted-checkout session's page in Chromium (docs/api.md#hosted-checkout-sessions), at 375 px
// and at desktop width, in English and in Icelandic: the page with its items and a discount line,
// a declined card, the return to the shop with checkoutReference, the closed page of a paid and of
// an expired session with the way back to the shop. No serious or critical axe violation, no
// sideways scroll, no console error; a screenshot of each. On the first backend only: the pages do
// not depend on the database.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { launchChromium, skipWithoutChromium } from "../support/browser.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { checkPage, DESKTOP, PHONE, watchedPage } from "../support/page-checks.ts";
import { createSession } from "../support/sessions.ts";
import { CARDS, futureExpiry } from "../support/shopper.ts";

const LABELS = {
  en: { card: "Card number", expiry: "Expiry date", cvc: "Security code", back: "Back to the shop", paid: "This order has been paid" },
  is: { card: "Kortanúmer", expiry: "Gildistími", cvc: "Öryggiskóði", back: "Aftur í verslunina", paid: "Þessi pöntun hefur verið greidd" },
} as const;

describe("session pages in Chromium", { skip: skipWithoutChromium }, () => {
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

  async function submit(page: Page): Promise<number> {
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === "POST"),
      page.locator("button.pay").click(),
    ]);
    await page.waitForLoadState();
    return response.status();
  }

  for (const [size, viewport] of [
    ["phone", PHONE],
    ["desktop", DESKTOP],
  ] as const) {
    for (const lang of ["en", "is"] as const) {
      test(`a session's pages on a ${size} in ${lang}: accessible, no sideways scroll, no console error`, async () => {
        // 404: the browser asks the stand-in shop below for a favicon it does not have.
        const { context, page, problems } = await watchedPage(browser, viewport, { expectedStatuses: [402, 404, 410] });
        const label = LABELS[lang];
        try {
          // The shop is this server: its health page stands in for the order-received page.
          const returnUrl = `${server.baseUrl}/healthz?order=1042`;
          const abandonUrl = `${server.baseUrl}/healthz?cart=1`;
          const { url, checkoutReference } = await createSession(server, {
            culture: lang,
            returnUrl,
            abandonUrl,
            items: [
              { Name: "Lopapeysa, handprjónuð úr íslenskri ull", Amount: 509000, Quantity: 1, UnitPrice: 509000 },
              { Name: "Sending", Amount: 0 },
              { Name: "Afsláttur / Discount", Amount: -20000 },
            ],
          });
          await page.goto(url);
          await checkPage(page, `session-page-${lang}`);
          assert.equal(await page.getByRole("link", { name: label.back }).getAttribute("href"), abandonUrl);

          await page.getByLabel(label.card).fill(CARDS.refused);
          await page.getByLabel(label.expiry).fill(futureExpiry());
          await page.getByLabel(label.cvc).fill("737");
          assert.equal(await submit(page), 402);
          await checkPage(page, `session-declined-${lang}`);

          await page.getByLabel(label.card).fill(CARDS.visa);
          await page.getByLabel(label.expiry).fill(futureExpiry());
          await page.getByLabel(label.cvc).fill("737");
          assert.equal(await submit(page), 303);
          assert.equal(page.url(), `${returnUrl}&checkoutReference=${checkoutReference}`);

          assert.equal((await page.goto(url))!.status(), 410);
          assert.equal(await page.locator("h1").textContent(), label.paid);
          await checkPage(page, `session-paid-${lang}`);

          const expiring = await createSession(server, {
            culture: lang,
            abandonUrl,
            expiresAt: new Date(Date.now() + 60_000).toISOString(),
          });
          await server.db
            .updateTable("payment_links")
            .set({ valid_until: new Date(Date.now() - 1000) })
            .where("reference", "=", expiring.checkoutReference)
            .execute();
          assert.equal((await page.goto(expiring.url))!.status(), 410);
          await checkPage(page, `session-expired-${lang}`);
          assert.deepEqual(problems, []);
        } finally {
          await context.close();
        }
      });
    }
  }
});
