// The hosted checkout in a real browser: Debian's Chromium driven by playwright-core (never a
// downloaded browser build). A shopper opens a link, fills shopper and card fields, pays and lands
// on the merchant's return URL; a declined card; a tokenize link; the language switch; no request
// leaves Paylink's origin and the CSP reports nothing. Screenshots go to .tmp/screenshots/.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { after, before, describe, it } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createTheme } from "../../src/db/merchants-repository.ts";
import { launchChromium, SCREENSHOTS, skipWithoutChromium } from "../support/browser.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { CARDS, createLink, futureExpiry } from "../support/shopper.ts";

const MOBILE = { width: 375, height: 812 };
const DESKTOP = { width: 1280, height: 900 };

describe("checkout in Chromium", {
  skip: skipWithoutChromium,
}, () => {
  let server: TestServer;
  let merchantSite: Server;
  let merchantUrl: string;
  let browser: Browser;
  let themeKey: string;

  before(async () => {
    server = await startTestServer();
    // A stored logo (what the admin API keeps of an uploaded or downloaded one): a 1×1 PNG.
    const logo = {
      contentType: "image/png" as const,
      bytes: Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64"),
    };
    themeKey = (
      await createTheme(server.database.db, server.merchantId, { name: "Ullarbúðin", primaryColor: "#0b6e4f", logoUrl: null, logo })
    ).themeKey;
    merchantSite = createServer((request, response) => {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(`<!doctype html><title>Thanks</title><h1>Thank you</h1><p id="url">${request.url?.replace(/[<>&"]/g, "")}</p>`);
    });
    await new Promise<void>((resolve) => merchantSite.listen(0, "127.0.0.1", resolve));
    const address = merchantSite.address();
    merchantUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => merchantSite?.close(resolve));
    await server?.close();
  });

  /** A page that records every request and every console problem (CSP violations included). */
  async function openContext(viewport: {
    width: number;
    height: number;
  }): Promise<{ context: BrowserContext; page: Page; requests: string[]; problems: string[] }> {
    const context = await browser.newContext({ viewport, deviceScaleFactor: 1, locale: "is-IS" });
    const page = await context.newPage();
    const requests: string[] = [];
    const problems: string[] = [];
    page.on("request", (request) => requests.push(request.url()));
    page.on("console", (message) => {
      // The 422, 402 and 410 pages are expected answers; anything else (a CSP violation, a 404) is not.
      if (/status of (402|410|422) /.test(message.text())) return;
      if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    return { context, page, requests, problems };
  }

  const createPayLink = () =>
    createLink(server, {
      themeKey,
      amount: 1178000,
      returnUrl: `${merchantUrl}/thanks?order=1001`,
      items: [
        { name: "Lopapeysa, handprjónuð", quantity: 1, unitPrice: 1090000, amountWithoutDiscount: 1090000, amount: 1090000 },
        { name: "Ullarsokkar", quantity: 2, unitPrice: 49000, amountWithoutDiscount: 98000, amount: 88000 },
      ],
      shopperInfo: [
        { field: "FullName", requirementType: "Required" },
        { field: "EmailAddress", requirementType: "Required" },
        { field: "Telephone", requirementType: "Optional" },
      ],
    });

  it("pays on a phone-sized screen and lands on the return URL with checkoutReference", async () => {
    const reference = await createPayLink();
    const { context, page, requests, problems } = await openContext(MOBILE);
    try {
      const response = await page.goto(`${server.baseUrl}/pay/${reference}`);
      assert.equal(response!.status(), 200);
      await page.screenshot({ path: `${SCREENSHOTS}checkout-mobile.png`, fullPage: true });
      assert.equal(await page.locator("h1").textContent(), "Yfirlit pöntunar");
      // The theme's logo loads from Paylink's own origin under the page's CSP.
      const logo = page.locator("header img");
      assert.equal(await logo.getAttribute("alt"), "Ullarbúðin");
      assert.equal(await logo.evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : -1)), 1);
      assert.match((await page.locator("button.pay").textContent())!, /^Greiða 11\.780 kr\.$/);

      // Labels are attached to their fields (what a screen reader and autofill use).
      await page.getByLabel("Fullt nafn").fill("Anna Jónsdóttir");
      await page.getByLabel("Netfang").fill("anna@example.is");
      await page.getByLabel("Kortanúmer").pressSequentially(CARDS.visa);
      // The helper script ran under the CSP: the number is grouped as typed.
      assert.equal(await page.getByLabel("Kortanúmer").inputValue(), "4111 1111 1111 1111");
      await page.getByLabel("Gildistími").pressSequentially(futureExpiry().replace("/", ""));
      assert.equal(await page.getByLabel("Gildistími").inputValue(), futureExpiry());
      await page.getByLabel("Öryggiskóði").fill("737");
      await page.getByLabel("Nafn korthafa").fill("ANNA JONSDOTTIR");

      // A visible focus ring in the brand colour.
      await page.getByLabel("Öryggiskóði").focus();
      const outline = await page
        .getByLabel("Öryggiskóði")
        .evaluate((el) => `${getComputedStyle(el).outlineStyle} ${getComputedStyle(el).outlineColor}`);
      assert.equal(outline, "solid rgb(11, 110, 79)");
      // Nothing overflows the 375 px screen.
      assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= MOBILE.width);
      await page.screenshot({ path: `${SCREENSHOTS}checkout-mobile-filled.png`, fullPage: true });

      await Promise.all([page.waitForURL(`${merchantUrl}/thanks**`), page.locator("button.pay").click()]);
      const landed = new URL(page.url());
      assert.equal(landed.searchParams.get("order"), "1001");
      const checkoutReference = landed.searchParams.get("checkoutReference")!;
      assert.match(checkoutReference, /^[0-9A-Za-z]{20}$/);

      const link = (await server.api("GET", `/api/v1/paymentlinks/${reference}`)).body.paymentLink;
      assert.equal(link.salesCount, 1);
      assert.equal(link.submissions[0].checkoutReference, checkoutReference);
      assert.deepEqual(link.submissions[0].answers, [
        { field: "FullName", value: "Anna Jónsdóttir" },
        { field: "EmailAddress", value: "anna@example.is" },
      ]);
      // Every request before the redirect went to Paylink itself.
      const beforeRedirect = requests.filter((url) => !url.startsWith(merchantUrl));
      assert.ok(beforeRedirect.length >= 3);
      for (const url of beforeRedirect) assert.ok(url.startsWith(server.baseUrl), url);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it("shows field errors, then a declined card with its reason (402), on a desktop screen", async () => {
    const reference = await createPayLink();
    const { context, page, problems } = await openContext(DESKTOP);
    try {
      await page.goto(`${server.baseUrl}/pay/${reference}?lang=en`);
      await page.screenshot({ path: `${SCREENSHOTS}checkout-desktop.png`, fullPage: true });
      const [invalid] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === "POST"),
        page.locator("button.pay").click(),
      ]);
      assert.equal(invalid.status(), 422);
      await page.waitForLoadState();
      assert.equal(await page.locator("#cardNumber-error").textContent(), "Enter your card number.");
      assert.equal(await page.locator("#FullName-error").textContent(), "Enter your full name.");
      assert.equal(await page.getByLabel("Card number").getAttribute("aria-invalid"), "true");
      await page.screenshot({ path: `${SCREENSHOTS}checkout-desktop-errors.png`, fullPage: true });

      await page.getByLabel("Full name").fill("Björn Björnsson");
      await page.getByLabel("Email address").fill("bjorn@example.is");
      await page.getByLabel("Card number").fill(CARDS.refused);
      await page.getByLabel("Expiry date").fill(futureExpiry());
      await page.getByLabel("Security code").fill("737");
      const [declined] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === "POST"),
        page.locator("button.pay").click(),
      ]);
      assert.equal(declined.status(), 402);
      await page.waitForLoadState();
      const alert = page.getByRole("alert").first();
      assert.match((await alert.textContent())!, /Payment declined.*Reason: The card issuer refused the payment\./);
      // The shopper's details survive; the card number does not.
      assert.equal(await page.getByLabel("Full name").inputValue(), "Björn Björnsson");
      assert.equal(await page.getByLabel("Card number").inputValue(), "");
      await page.screenshot({ path: `${SCREENSHOTS}checkout-desktop-declined.png`, fullPage: true });

      // Another card on the same page pays; without returnUrl this would be a receipt, here the merchant.
      await page.getByLabel("Card number").fill(CARDS.mastercard);
      await page.getByLabel("Security code").fill("737");
      await Promise.all([page.waitForURL(`${merchantUrl}/thanks**`), page.locator("button.pay").click()]);
      const link = (await server.api("GET", `/api/v1/paymentlinks/${reference}`)).body.paymentLink;
      assert.deepEqual(
        link.submissions.map((s: any) => s.completed),
        [false, true],
      );
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it("saves a card through a tokenize link and shows the receipt", async () => {
    const reference = await createLink(server, { type: "TokenizeByLink", amount: 0, items: [], themeKey, culture: "en" });
    const { context, page, problems } = await openContext(MOBILE);
    try {
      await page.goto(`${server.baseUrl}/pay/${reference}`);
      assert.equal(await page.locator("h1").textContent(), "Save your card");
      await page.screenshot({ path: `${SCREENSHOTS}tokenize-mobile.png`, fullPage: true });
      await page.getByLabel("Card number").fill(CARDS.visa);
      await page.getByLabel("Expiry date").fill(futureExpiry());
      await page.getByLabel("Security code").fill("737");
      const [saved] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === "POST"),
        page.getByRole("button", { name: "Save card" }).click(),
      ]);
      assert.equal(saved.status(), 200);
      await page.waitForLoadState();
      assert.equal(await page.locator("h1").textContent(), "Card saved");
      const link = (await server.api("GET", `/api/v1/paymentlinks/${reference}`)).body.paymentLink;
      assert.equal(await page.locator("#checkout-reference").textContent(), link.submissions[0].checkoutReference);
      assert.match(link.submissions[0].token, /^[0-9A-Z]{16}$/);
      assert.equal(link.status, "Completed");
      await page.screenshot({ path: `${SCREENSHOTS}tokenize-receipt-mobile.png`, fullPage: true });
      // Opening the link again: the Completed page (410).
      const again = await page.goto(`${server.baseUrl}/pay/${reference}`);
      assert.equal(again!.status(), 410);
      assert.equal(await page.locator("h1").textContent(), "This card has already been saved");
      await page.screenshot({ path: `${SCREENSHOTS}completed-410-mobile.png`, fullPage: true });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it("switches language and remembers it; a receipt when there is no return URL", async () => {
    const reference = await createLink(server, { culture: "en", themeKey });
    const { context, page, problems } = await openContext(DESKTOP);
    try {
      await page.goto(`${server.baseUrl}/pay/${reference}`);
      assert.equal(await page.locator("html").getAttribute("lang"), "en");
      await Promise.all([page.waitForURL(/lang=is/), page.getByRole("link", { name: "Íslenska" }).click()]);
      assert.equal(await page.locator("html").getAttribute("lang"), "is");
      await page.goto(`${server.baseUrl}/pay/${reference}`);
      assert.equal(await page.locator("html").getAttribute("lang"), "is", "remembered");
      await page.getByLabel("Kortanúmer").fill(CARDS.visa);
      await page.getByLabel("Gildistími").fill(futureExpiry());
      await page.getByLabel("Öryggiskóði").fill("737");
      await Promise.all([page.waitForResponse((r) => r.request().method() === "POST"), page.locator("button.pay").click()]);
      await page.waitForLoadState();
      assert.equal(await page.locator("h1").textContent(), "Greiðsla tókst");
      assert.equal(await page.locator("#receipt-amount").textContent(), "489 kr.");
      assert.equal(await page.locator("#receipt-card").textContent(), "Visa •••• 1111");
      await page.screenshot({ path: `${SCREENSHOTS}receipt-desktop.png`, fullPage: true });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
