// A link paid through the live gateway in Chromium (docs/processors.md#how-a-payment-goes), at
// 375 px and at desktop width, in English and in Icelandic: Paylink's page without card fields,
// the button's post followed to the gateway's own page (the page's CSP lets its form lead there),
// the "waiting for the card processor" page while the outcome is unknown, and the receipt after
// the card was paid on the gateway's page. axe (moderate and up), no sideways scroll, no console
// error. Screenshots of the English phone and Icelandic desktop runs go to docs/screenshots/processors/.
// On the first backend only: the pages do not depend on the database.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { saveTerminalProcessor } from "../../src/db/terminal-processors-repository.ts";
import { launchChromium, skipWithoutChromium } from "../support/browser.ts";
import { testBackends } from "../support/databases.ts";
import { type LocalGateway, startLocalGateway } from "../support/gateway.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { testKeyring } from "../support/keyring.ts";
import { checkPage, DESKTOP, PHONE, watchedPage } from "../support/page-checks.ts";
import { CARDS, createLink, futureExpiry } from "../support/shopper.ts";

const DOCS_SCREENSHOTS = fileURLToPath(new URL("../../../../docs/screenshots/processors/", import.meta.url));

const LABELS = {
  en: {
    continue: /Continue to pay/,
    card: "Card number",
    expiry: "Expiry date",
    cvc: "Security code",
    waiting: "Waiting for the card processor",
    thanks: /Payment successful/,
  },
  is: {
    continue: /Halda áfram og greiða/,
    card: "Kortanúmer",
    expiry: "Gildistími",
    cvc: "Öryggiskóði",
    waiting: "Beðið eftir færsluhirðinum",
    thanks: /Greiðsla tókst/,
  },
} as const;

describe("a link paid on the live gateway's page, in Chromium", { skip: skipWithoutChromium }, () => {
  let gateway: LocalGateway;
  let shop: TestServer;
  let browser: Browser;
  before(async () => {
    const backend = testBackends()[0]!;
    gateway = await startLocalGateway(backend);
    shop = await startTestServer({ backend, allowPrivateTargets: true });
    const hmacKey = await gateway.sendWebhooksTo(`${shop.baseUrl}/processors/${shop.terminalIdentifier}/webhook`);
    await saveTerminalProcessor(shop.db, testKeyring(), shop.merchantId, shop.terminalIdentifier, {
      type: "straumur",
      environment: "test",
      apiKey: gateway.server.apiKey,
      terminalIdentifier: gateway.server.terminalIdentifier,
      hmacKey,
      themeKey: null,
      baseUrl: gateway.baseUrl,
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await shop?.close();
    await gateway?.close();
  });

  for (const [size, viewport] of [
    ["phone", PHONE],
    ["desktop", DESKTOP],
  ] as const) {
    for (const lang of ["en", "is"] as const) {
      test(`on a ${size} in ${lang}: no card fields here, the card on the gateway's page, then the receipt`, async () => {
        // 202: the waiting page; 404: the favicon.
        const { context, page, problems } = await watchedPage(browser, viewport, { expectedStatuses: [202, 404] });
        const label = LABELS[lang];
        const keep = (size === "phone" && lang === "en") || (size === "desktop" && lang === "is");
        const shots = keep ? { screenshots: DOCS_SCREENSHOTS } : {};
        try {
          const reference = await createLink(shop, { culture: lang });
          await page.goto(`${shop.baseUrl}/pay/${reference}`);
          assert.equal(await page.locator('input[name="cardNumber"]').count(), 0);
          await checkPage(page, `processor-page-${lang}`, shots);

          await Promise.all([
            page.waitForURL((url) => url.origin === gateway.origin),
            page.getByRole("button", { name: label.continue }).click(),
          ]);
          // Back before paying: the outcome is unknown, the page waits and asks again by itself.
          const gatewayPage = page.url();
          const returnUrl = JSON.parse(gateway.sent.filter((request) => request.method === "POST").pop()!.body).returnUrl as string;
          const waiting = await page.goto(returnUrl);
          assert.equal(waiting!.status(), 202);
          assert.equal(await page.locator("h1").textContent(), label.waiting);
          await checkPage(page, `processor-waiting-${lang}`, shots);

          await page.goto(gatewayPage);
          await page.getByLabel(label.card).fill(CARDS.visa);
          await page.getByLabel(label.expiry).fill(futureExpiry());
          await page.getByLabel(label.cvc).fill("737");
          await Promise.all([page.waitForURL((url) => url.origin === new URL(shop.baseUrl).origin), page.locator("button.pay").click()]);
          await page.waitForLoadState();
          assert.match((await page.locator("h1").textContent()) ?? "", label.thanks);
          await checkPage(page, `processor-receipt-${lang}`, shots);
          assert.deepEqual(problems, []);
        } finally {
          await context.close();
        }
      });
    }
  }
});
