// The portal's audit log in Chromium (docs/portal.md#audit-log), at 375 px and 1280 px, in
// Icelandic and English: axe finds nothing, moderate included; nothing scrolls sideways; on a
// phone each entry is a card that shows who, what and the object; the filters and the CSV link
// work without JavaScript. Screenshots go to docs/screenshots/audit/. What the page shows does not
// depend on the database, so this runs on the first backend only (the HTTP tests run on both).
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { sellLink } from "../support/after-sale.ts";
import { launchChromium, skipWithoutChromium } from "../support/browser.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { checkPage, DESKTOP, PHONE, signInWithForm, watchedPage } from "../support/page-checks.ts";
import { addPortalUser, PortalClient, signedIn } from "../support/portal.ts";

const SCREENSHOTS = fileURLToPath(new URL("../../../../docs/screenshots/audit/", import.meta.url));
const EMAIL = "owner@example.com";

describe("the audit log page in Chromium", { skip: skipWithoutChromium }, () => {
  let server: TestServer;
  let browser: Browser;
  let payfacReference: string;

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    server = await startTestServer();
    await addPortalUser(server, server, EMAIL);
    // A few entries of every kind of actor: API key, a person, the operator.
    ({ payfacReference } = await sellLink(server, 1178000));
    await server.api("POST", "/api/v1/modification/refund", { payfacReference, amount: 200000, currency: "ISK", refundReason: "RETURN" });
    const portal = await signedIn(server, server, "bokari.med.langt.netfang@example.com");
    const developers = await portal.get("/portal/developers");
    await portal.post("/portal/developers/api-keys", { name: "Vefverslun" }, developers);
    await fetch(`${server.baseUrl}/admin/v1/merchants/${server.merchantId}/themes`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Jólaútlit", primaryColor: "#1f4e8c" }),
    });
    await new PortalClient(server.baseUrl).signIn("bokari.med.langt.netfang@example.com", "not the password");
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
    test(`on a ${size}, in Icelandic and English`, async () => {
      const { context, page, problems } = await watchedPage(browser, viewport);
      try {
        await signInWithForm(page, server.baseUrl, EMAIL);
        for (const lang of ["is", "en"] as const) {
          await page.goto(`${server.baseUrl}/portal/audit?lang=${lang}`);
          await checkPage(page, `audit-${lang}`, { screenshots: SCREENSHOTS });
          const heading = await page.getByRole("heading", { level: 1 }).textContent();
          assert.equal(heading, lang === "is" ? "Atvikaskrá" : "Audit log");
          const actions = await page
            .locator("table[data-audit] tbody tr")
            .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-action")));
          for (const action of ["link.create", "payment.refund", "api-key.create", "theme.create", "sign-in.failed", "sign-in"]) {
            assert.ok(actions.includes(action), `${action} in ${actions.join(" ")}`);
          }
          const refundRow = page.locator('tr[data-action="payment.refund"]');
          if (size === "phone") {
            assert.equal(await refundRow.evaluate((row) => getComputedStyle(row).display), "block", "each entry is a card");
            assert.equal(await page.locator("table[data-audit] thead").evaluate((h) => h.getBoundingClientRect().height <= 1), true);
          }
          for (const text of [server.apiKey.slice(0, 8), payfacReference]) assert.ok(await refundRow.getByText(text).isVisible());
          assert.ok(await refundRow.getByText(lang === "is" ? "Endurgreiðsla" : "Refund", { exact: true }).isVisible());
        }
        // English from here: the filter, without JavaScript's help, by the form's own GET.
        await page.getByLabel("Action").selectOption("api-key.create");
        await Promise.all([page.waitForURL(/action=api-key\.create/), page.getByRole("button", { name: "Show" }).click()]);
        assert.equal(await page.locator("table[data-audit] tbody tr").count(), 1);
        assert.ok(await page.getByText("bokari.med.langt.netfang@example.com").first().isVisible());
        await checkPage(page, "audit-filtered-en", { screenshots: SCREENSHOTS });
        const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download CSV" }).click()]);
        assert.match(download.suggestedFilename(), /^paylink-audit-\d{4}-\d{2}-\d{2}\.csv$/);
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }
});
