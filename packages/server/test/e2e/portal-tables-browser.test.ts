// The portal's tables on a phone, and the link form's running total, in Chromium, in Icelandic and
// English: at 375 px every table of users, sessions, refunds, disputes, API keys and a link's submissions is
// a list of cards, the page does not scroll sideways, each card's amount and status lie inside the
// window, and axe finds nothing (moderate included); at 1280 px the same pages are tables. The
// total under the link form's items follows what is typed. Screenshots go to
// docs/screenshots/portal/ for a person to look at. The pages do not depend on the database, so
// this runs on the first backend only.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { AxeBuilder } from "@axe-core/playwright";
import type { Browser, Page } from "playwright-core";
import { PORTAL_MESSAGES } from "../../src/portal/i18n.ts";
import { settleNotifiedDispute } from "../../src/services/notified-dispute.ts";
import { refund } from "../support/after-sale.ts";
import { launchChromium, skipWithoutChromium } from "../support/browser.ts";
import { getLink } from "../support/fixtures.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { DESKTOP, PHONE, signInWithForm, watchedPage } from "../support/page-checks.ts";
import { addPortalUser, PortalClient } from "../support/portal.ts";
import { createLink, pay } from "../support/shopper.ts";

const SHOTS = fileURLToPath(new URL("../../../../docs/screenshots/portal/", import.meta.url));

/** A screenshot, axe with moderate violations counted too, and no sideways scroll. */
export async function checkPortalPage(page: Page, name: string): Promise<void> {
  const width = page.viewportSize()?.width ?? 0;
  await page.screenshot({ path: `${SHOTS}${name}-${width}.png`, fullPage: true });
  const results = await new AxeBuilder({ page }).analyze();
  const counted = results.violations.filter((v) => v.impact === "moderate" || v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(
    counted.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
    [],
    `${name} at ${width}px (${page.url()})`,
  );
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `${name} scrolls sideways by ${overflow}px at ${width}px`);
}

/** How the table shows at this width: as cards (no visible head row) or as a table; and any cell named by `labels` outside the window. */
async function tableShape(page: Page, selector: string, labels: string[]) {
  return page.evaluate(
    ({ selector, labels }) => {
      const table = document.querySelector(selector);
      if (!table) return { found: false, cards: false, outside: [] as string[], tallest: 0 };
      const head = table.querySelector("thead");
      const cards = head ? head.getBoundingClientRect().height <= 1 : false;
      const outside: string[] = [];
      for (const cell of table.querySelectorAll("td")) {
        if (!labels.includes(cell.getAttribute("data-label") ?? "")) continue;
        const box = cell.getBoundingClientRect();
        if (box.width === 0 || box.left < 0 || box.right > window.innerWidth + 1)
          outside.push(`${cell.getAttribute("data-label")}: ${cell.textContent}`);
      }
      const tallest = Math.max(0, ...[...table.querySelectorAll("tbody tr")].map((row) => row.getBoundingClientRect().height));
      return { found: true, cards, outside, tallest };
    },
    { selector, labels },
  );
}

describe("portal tables at 375 px and the link form's running total, in Chromium", { skip: skipWithoutChromium }, () => {
  let server: TestServer;
  let browser: Browser;
  let paymentPath: string;
  let linkPath: string;

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer();
    const reference = await createLink(server, { description: "Lopapeysa", amount: 2_000_000, items: [] });
    await pay(server.baseUrl, reference);
    const link = await getLink(server, reference);
    assert.equal((await refund(server, link.submissions[0].payfacReference, 50_000)).status, 200);
    // A chargeback on it, as a processor's notification would bring it: the payment page's disputes table.
    await settleNotifiedDispute(
      { db: server.db, now: () => new Date(), log: { info() {}, warn() {}, error() {} } },
      server.terminalIdentifier,
      {
        dispute: {
          disputeReference: "DSP-7Q2M4K",
          eventReference: "DSP-7Q2M4K-1",
          payfacReference: link.submissions[0].payfacReference,
          status: "Open",
          processorEvent: "NOTIFICATION_OF_CHARGEBACK",
          amount: { value: 2_000_000, currency: "ISK" },
          reason: "Fraud",
          occurredAt: new Date("2026-11-20T10:00:00Z"),
        },
      },
    );
    paymentPath = `/portal/payments/${link.submissions[0].checkoutReference}`;
    linkPath = `/portal/links/${reference}`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const { lang, viewport } of [
    { lang: "is", viewport: PHONE },
    { lang: "en", viewport: PHONE },
    { lang: "en", viewport: DESKTOP },
  ] as const) {
    test(`${lang} at ${viewport.width}px: tables ${viewport === PHONE ? "become cards" : "stay tables"}, amount and status in view`, async () => {
      const m = PORTAL_MESSAGES[lang];
      const owner = await addPortalUser(server, server, `tables-${lang}-${viewport.width}@example.com`, "owner");
      await addPortalUser(server, server, `colleague-${lang}-${viewport.width}@example.com`, "support");
      // A second session of the owner's, so the sessions table has an "end" button.
      await new PortalClient(server.baseUrl).signIn(owner.email, owner.password);
      const { context, page, problems } = await watchedPage(browser, viewport);
      await signInWithForm(page, server.baseUrl, owner.email, owner.password);
      const pages = [
        { path: "/portal/users", name: "users", table: "table[data-users]", labels: [m.users.email, m.users.role] },
        { path: "/portal/account", name: "account", table: "table[data-sessions]", labels: [m.account.started, m.account.address] },
        { path: paymentPath, name: "payment", table: "table[data-refunds]", labels: [m.payment.amount, m.payment.result] },
        { path: paymentPath, name: "payment", table: "[data-disputes] table", labels: [m.payment.amount, m.payment.result] },
        { path: "/portal/developers", name: "developers", table: "table[data-api-keys]", labels: [m.dev.state] },
        { path: linkPath, name: "link", table: "table[data-submissions]", labels: [m.payment.amount, m.payment.result] },
      ];
      for (const shown of pages) {
        await page.goto(`${server.baseUrl}${shown.path}${shown.path.includes("?") ? "&" : "?"}lang=${lang}`);
        await checkPortalPage(page, `${shown.name}-${lang}`);
        const shape = await tableShape(page, shown.table, shown.labels);
        assert.ok(shape.found, `${shown.table} on ${shown.path}`);
        assert.equal(
          shape.cards,
          viewport === PHONE,
          `${shown.table} is ${viewport === PHONE ? "cards" : "a table"} at ${viewport.width}px`,
        );
        assert.deepEqual(shape.outside, [], `${shown.table}: every labelled cell is inside the window`);
        // No tall empty rows: a card holds its few lines, not a column squeezed to a word a line.
        assert.ok(shape.tallest < 420, `${shown.table}: the tallest row is ${shape.tallest}px`);
      }
      assert.deepEqual(problems, []);
      await context.close();
    });
  }

  test("the link form's total follows the items as they are typed, in Icelandic", async () => {
    const owner = await addPortalUser(server, server, "total@example.com", "owner");
    const { context, page, problems } = await watchedPage(browser, PHONE);
    await signInWithForm(page, server.baseUrl, owner.email, owner.password);
    await page.goto(`${server.baseUrl}/portal/links/new?lang=is`);
    const total = page.locator("output[data-total]");
    assert.equal(await total.getAttribute("aria-live"), "polite");
    assert.equal(await total.textContent(), "—");
    const rows = page.locator("[data-item]");
    await rows.nth(0).locator("[name=itemName]").fill("Lopapeysa");
    await rows.nth(0).locator("[name=itemUnitPrice]").fill("18.900");
    assert.equal(await total.textContent(), "18.900 kr.");
    await rows.nth(1).locator("[name=itemName]").fill("Sokkar");
    await rows.nth(1).locator("[name=itemQuantity]").fill("2");
    await rows.nth(1).locator("[name=itemUnitPrice]").fill("490");
    assert.equal(await total.textContent(), "19.880 kr.");
    await rows.nth(1).locator("[name=itemAmount]").fill("880");
    assert.equal(await total.textContent(), "19.780 kr.", "a discounted line counts its own amount");
    await rows.nth(1).locator("[name=itemUnitPrice]").fill("átján");
    await rows.nth(1).locator("[name=itemAmount]").fill("");
    assert.equal(await total.textContent(), "—", "an unreadable price shows no total");
    await rows.nth(1).locator("[name=itemUnitPrice]").fill("18900");
    assert.equal(await total.textContent(), "56.700 kr.", "18900 reads as 18.900");
    await checkPortalPage(page, "link-form-total-is");
    assert.deepEqual(problems, []);
    await context.close();
  });
});
