// The API reference in a real browser: Debian's Chromium driven by playwright-core opens /docs,
// sees the guide, the error catalogue and every operation rendered by Swagger UI, reads the
// create examples, and creates a link with "Try it out" and an API key — all under the page's
// strict CSP, with no request leaving Paylink's origin. Screenshots go to .tmp/screenshots/.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { PAY_BY_LINK } from "../../src/api/openapi-examples.ts";
import { ERRORS } from "../../src/domain/errors.ts";
import { launchChromium, SCREENSHOTS, skipWithoutChromium } from "../support/browser.ts";
import { getLink } from "../support/fixtures.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";

const OPERATIONS = [
  "POST/api/v1/paymentlinks/create",
  "GET/api/v1/paymentlinks/{reference}",
  "POST/api/v1/paymentlinks/update",
  "GET/api/v1/paymentlinks",
  "POST/api/v1/paymentlinks/disable",
];

declare global {
  interface Window {
    cspViolations?: string[];
  }
}

describe("the API reference in Chromium", {
  skip: skipWithoutChromium,
}, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  const requests: string[] = [];
  const problems: string[] = [];

  before(async () => {
    server = await startTestServer();
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
    page = await context.newPage();
    page.on("request", (request) => requests.push(request.url()));
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    // Injected by the browser, outside the page's CSP, so that violations are counted even if
    // Chromium stopped logging them to the console.
    await page.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (event) => {
        window.cspViolations = [...(window.cspViolations ?? []), `${event.violatedDirective} ${event.blockedURI}`];
      });
    });
    await page.goto(`${server.baseUrl}/docs`);
    await page.locator(".opblock").first().waitFor();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it("shows the guide, the whole error catalogue and every /api/v1 operation", async () => {
    await assert.doesNotReject(
      page
        .getByRole("heading", { name: /Paylink API/ })
        .first()
        .waitFor(),
    );
    const info = await page.locator(".information-container").innerText();
    assert.match(info, /compatible with\s+Straumur's payment-links API/);
    for (const heading of ["Authentication", "Requests and responses", "Idempotency-Key", "Error codes"])
      assert.ok(info.includes(heading), `the guide's section ${heading}`);
    const rows = await page.locator(".information-container table tbody tr").allInnerTexts();
    assert.equal(rows.length, Object.keys(ERRORS).length, "one table row per error");
    for (const [name, error] of Object.entries(ERRORS))
      assert.ok(
        rows.some((row) => row.startsWith(error.code) && row.includes(name) && row.includes(String(error.status))),
        `${error.code} ${name}`,
      );
    const shown = (await page.locator(".opblock-summary").allInnerTexts()).map((text) => text.replace(/\s+/g, ""));
    for (const operation of OPERATIONS)
      assert.ok(
        shown.some((text) => text.startsWith(operation)),
        `${operation} is rendered (${shown.join(", ")})`,
      );
    await page.screenshot({ path: `${SCREENSHOTS}docs-reference.png` });
    await page.locator(".information-container table").screenshot({ path: `${SCREENSHOTS}docs-error-catalogue.png` });
  });

  it("shows the create examples and creates a link with Try it out and an API key", async () => {
    await page.getByRole("button", { name: "Authorize" }).first().click();
    await page.locator("#api_key_value").fill(server.apiKey);
    await page.locator(".auth-container").first().getByRole("button", { name: "Apply credentials" }).click();
    await page.getByRole("button", { name: "Close" }).first().click();

    const create = page.locator("#operations-Payment_links-createPaymentLink");
    await create.locator(".opblock-summary").click();
    const body = create.locator(".opblock-section-request-body");
    await assert.doesNotReject(body.getByText('"Lopapeysa, size M"').waitFor());
    const choices = await body.locator(".examples-select select option").allInnerTexts();
    assert.ok(
      choices.some((text) => /TokenizeByLink/.test(text)),
      `the TokenizeByLink example is offered: ${choices.join(" | ")}`,
    );
    assert.ok(await create.getByText("ISK amount must end in 00").count(), "the 400 lists its codes");

    await create.getByRole("button", { name: "Try it out" }).click();
    await create
      .locator("textarea.body-param__text")
      .fill(JSON.stringify({ ...PAY_BY_LINK, terminalIdentifier: server.terminalIdentifier }));
    await create.getByRole("button", { name: "Execute" }).click();
    const live = create.locator(".live-responses-table .response");
    await live.first().waitFor();
    assert.equal((await live.locator(".response-col_status").first().innerText()).trim(), "200");
    const answer = JSON.parse(await live.locator(".response-col_description pre").first().innerText());
    assert.equal((await getLink(server, answer.paymentLinkReference)).description, PAY_BY_LINK.description);
    await create.screenshot({ path: `${SCREENSHOTS}docs-create-try-it-out.png` });
    assert.ok(
      requests.some((url) => url === `${server.baseUrl}/api/v1/paymentlinks/create`),
      "the browser called the API",
    );
  });

  it("loaded nothing from elsewhere, and the console and the CSP report nothing", async () => {
    const origin = new URL(server.baseUrl).origin;
    const elsewhere = requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith("data:"));
    assert.deepEqual(elsewhere, []);
    assert.deepEqual(problems, []);
    assert.deepEqual(await page.evaluate(() => window.cspViolations ?? []), []);
  });
});
