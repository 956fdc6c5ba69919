// A merchant's whole day in the portal, in Chromium, on each database: every merchant action goes
// through the portal's pages (forms, buttons, links), never through the API. The shopper pays in a
// second browser context (their own cookies). The test itself only reads: the database-backed API
// with the merchant's key, the local webhook receiver, and the downloaded CSV.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, test } from "node:test";
import { verifyPaymentWebhook } from "paylink-sdk";
import type { Browser, Page } from "playwright-core";
import { WebhookWorker } from "../../src/webhooks/worker.ts";
import { launchChromium, SCREENSHOTS, skipWithoutChromium } from "../support/browser.ts";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { testKeyring } from "../support/keyring.ts";
import { DESKTOP, PHONE, signInWithForm, type WatchedPage, watchedPage } from "../support/page-checks.ts";
import { addPortalUser } from "../support/portal.ts";
import { CARDS, futureExpiry } from "../support/shopper.ts";
import { waitUntil } from "../support/wait.ts";
import { type Receiver, startReceiver } from "../webhooks/support.ts";

const EMAIL = "journey@example.com";

/** Clicks what starts a navigation and waits for the page it leads to. */
async function clickAndWait(page: Page, url: RegExp, click: () => Promise<void>): Promise<void> {
  await Promise.all([page.waitForURL(url), click()]);
}

/** Reloads the page until `ready` holds (the webhook worker runs beside the test). */
async function reloadUntil(page: Page, ready: () => Promise<boolean>): Promise<void> {
  await waitUntil(async () => {
    await page.reload();
    return ready();
  });
}

for (const backend of testBackends()) {
  describe(`portal journey in Chromium (${backend.name})`, { skip: skipWithoutChromium }, () => {
    let server: TestServer;
    let receiver: Receiver;
    let worker: WebhookWorker;
    let browser: Browser;
    let merchant: WatchedPage;
    let shopper: WatchedPage;
    // What one step finds and a later one uses.
    let reference = "";
    let checkoutReference = "";
    let webhookPath = "";
    let hmacKey = "";

    before(async () => {
      server = await startTestServer({ backend, allowPrivateTargets: true });
      await addPortalUser(server, server, EMAIL);
      receiver = await startReceiver();
      worker = new WebhookWorker({ db: server.db, keyring: testKeyring(), allowPrivate: true, idleIntervalMs: 100 }).start();
      browser = await launchChromium();
      merchant = await watchedPage(browser, DESKTOP);
      shopper = await watchedPage(browser, PHONE);
    });
    after(async () => {
      await browser?.close();
      await worker?.stop();
      await receiver?.close();
      await server?.close();
    });

    test("sign in and create a pay link with two items through the form", async () => {
      const { page } = merchant;
      await signInWithForm(page, server.baseUrl, EMAIL);
      await clickAndWait(page, /\/portal\/links$/, () => page.getByRole("navigation").getByRole("link", { name: "Links" }).click());
      await clickAndWait(page, /\/portal\/links\/new$/, () => page.getByRole("link", { name: "New payment link" }).click());
      const rows = page.locator("[data-item]");
      await rows.nth(0).getByLabel("Name").fill("Lopapeysa");
      await rows.nth(0).getByLabel("Quantity").fill("1");
      await rows.nth(0).getByLabel("Unit price").fill("10900");
      await rows.nth(1).getByLabel("Name").fill("Ullarsokkar");
      await rows.nth(1).getByLabel("Quantity").fill("2");
      await rows.nth(1).getByLabel("Unit price").fill("980");
      // The shopper fields and the rarer options wait behind "more": opened as a merchant would.
      await page.locator("summary", { hasText: "Shopper details to ask for" }).click();
      await page.getByLabel("Full name", { exact: true }).selectOption("Required");
      await page.getByLabel("Description (for you, not shown to the shopper)").fill("Journey order 17");
      await page.locator("summary", { hasText: "More options" }).click();
      await page.getByLabel("Language of the checkout page").selectOption("en");
      await clickAndWait(page, /\/portal\/links\/[0-9A-Za-z]+$/, () => page.getByRole("button", { name: "Create link" }).click());
      reference = page.url().split("/").pop()!;

      const link = (await server.api("GET", `/api/v1/paymentlinks/${reference}`)).body.paymentLink;
      assert.equal(link.amount, 1286000, "10 900 + 2 × 980 kr. in minor units");
      assert.deepEqual(
        link.items.map((i: any) => [i.name, i.quantity, i.unitPrice, i.amount]),
        [
          ["Lopapeysa", 1, 1090000, 1090000],
          ["Ullarsokkar", 2, 98000, 196000],
        ],
      );
      assert.equal(link.description, "Journey order 17");
      assert.equal(await page.locator("[data-link-url]").textContent(), `${server.baseUrl}/pay/${reference}`);
    });

    test("a shopper in another browser pays it with the sandbox's approve card", async () => {
      const { page } = shopper;
      const url = await merchant.page.locator("[data-link-url]").textContent();
      await page.goto(url!);
      assert.equal(await page.locator("h1").textContent(), "Order summary");
      await page.getByLabel("Full name").fill("Anna Jónsdóttir");
      await page.getByLabel("Card number").fill(CARDS.visa);
      await page.getByLabel("Expiry date").fill(futureExpiry());
      await page.getByLabel("Security code").fill("737");
      await Promise.all([page.waitForResponse((r) => r.request().method() === "POST"), page.locator("button.pay").click()]);
      await page.waitForLoadState();
      assert.equal(await page.locator("h1").textContent(), "Payment successful");
      assert.equal(await page.locator("#receipt-amount").textContent(), "ISK 12,860");
      checkoutReference = (await page.locator("#checkout-reference").textContent())!.trim();
      assert.match(checkoutReference, /^[0-9A-Za-z]{20}$/);
    });

    test("the portal shows the sale, the submission and the chart", async () => {
      const { page } = merchant;
      await page.reload();
      assert.equal(await page.locator("[data-sales]").textContent(), "1");
      const submission = page.locator("[data-submissions] tbody tr");
      assert.equal(await submission.count(), 1);
      assert.match((await submission.textContent())!, /Anna Jónsdóttir/);
      assert.match((await submission.textContent())!, /1111/, "the masked card");

      await clickAndWait(page, /\/portal\/overview$/, () => page.getByRole("navigation").getByRole("link", { name: "Overview" }).click());
      assert.equal((await page.locator("[data-stat=sales]").textContent())?.trim(), "1");
      const today = new Date().toISOString().slice(0, 10);
      const bar = page.locator(`[data-chart] rect[data-day="${today}"]`);
      assert.ok(Number(await bar.getAttribute("height")) > 0, "today's bar has a height");
      assert.match((await page.locator("[data-chart]").getAttribute("aria-label"))!, /1 sales?, /);
      assert.match((await page.locator("main").textContent())!, /Journey order 17/);
      // The README's portal tour shows this page (docs/portal-overview.png is copied from it).
      await page.screenshot({ path: `${SCREENSHOTS}portal-journey-overview-${backend.name}.png`, fullPage: true });
    });

    test("add a webhook endpoint, refund half of the sale on its page, and see the Refund delivery", async () => {
      const { page } = merchant;
      await clickAndWait(page, /\/portal\/developers$/, () =>
        page.getByRole("navigation").getByRole("link", { name: "Developers" }).click(),
      );
      await page.getByLabel("URL", { exact: true }).fill(receiver.url);
      // The POST leads to the new endpoint's page, which shows its keys this once.
      await clickAndWait(page, /\/portal\/developers\/webhooks\/whk_[A-Za-z0-9]+\?done=added$/, () =>
        page.getByRole("button", { name: "Add endpoint" }).click(),
      );
      await page.getByRole("heading", { name: "Endpoint added" }).waitFor();
      hmacKey = (await page.locator("code.secret").nth(1).textContent())!.trim();
      assert.match(hmacKey, /^[0-9a-f]{64}$/);
      webhookPath = new URL(page.url()).pathname;
      await page.reload();
      assert.equal(await page.locator("code.secret").count(), 0, "a reload shows the keys no more");

      await clickAndWait(page, /\/portal\/payments$/, () => page.getByRole("navigation").getByRole("link", { name: "Payments" }).click());
      await clickAndWait(page, new RegExp(`/portal/payments/${checkoutReference}$`), () =>
        page.locator(`a[href="/portal/payments/${checkoutReference}"]`).click(),
      );
      assert.match(
        (await page
          .getByLabel(/Amount to refund/)
          .locator("..")
          .textContent())!,
        /at most ISK 12,860/,
      );
      await page.getByLabel(/Amount to refund/).fill("6430");
      await page.getByLabel("Reason").selectOption("RETURN");
      // The refund asks first, naming the amount; its button does it.
      await clickAndWait(page, /\/refund\?amount=6430/, () => page.getByRole("button", { name: "Refund", exact: true }).click());
      await page.getByRole("heading", { name: "Refund ISK 6,430 to the shopper?" }).waitFor();
      assert.equal((await server.db.selectFrom("refunds").select("payfac_reference").execute()).length, 0, "asking refunds nothing");
      await clickAndWait(page, /refunded=1$/, () => page.getByRole("button", { name: "Refund", exact: true }).click());
      const refunds = page.locator("[data-refunds] tbody tr");
      assert.equal(await refunds.count(), 1);
      assert.match((await refunds.textContent())!, /Returned goods.*ISK 6,430.*Refunded/);
      assert.match(
        (await page
          .getByLabel(/Amount to refund/)
          .locator("..")
          .textContent())!,
        /at most ISK 6,430/,
      );

      await page.goto(`${server.baseUrl}${webhookPath}`);
      await reloadUntil(page, async () => /· Refund · Delivered · Attempts: 1/.test((await page.locator("main").textContent())!));
      const delivered = receiver.requests.map((r) => JSON.parse(r.body));
      assert.deepEqual(
        delivered.map((m) => m.additionalData.eventType),
        ["Refund"],
      );
      const verified = verifyPaymentWebhook(receiver.requests[0]!.body, hmacKey);
      assert.ok(verified.valid, JSON.stringify(verified));
      assert.equal(delivered[0].amount, "643000", "half of the sale, in minor units");
    });

    test("send a test message, rotate the HMAC key: the next message verifies with the new key only", async () => {
      const { page } = merchant;
      await Promise.all([page.waitForLoadState(), page.getByRole("button", { name: "Send a test message" }).click()]);
      await page.getByText("A test message is on its way").waitFor();
      const [, testMessage] = await receiver.waitFor(2);
      assert.equal(JSON.parse(testMessage!.body).additionalData.eventType, "Test");
      assert.ok(verifyPaymentWebhook(testMessage!.body, hmacKey).valid);

      // Rotating asks first, on a page of its own.
      await clickAndWait(page, /\/rotate$/, () => page.getByRole("link", { name: "Rotate HMAC key" }).click());
      await page.getByRole("heading", { name: "Rotate the HMAC key?" }).waitFor();
      await clickAndWait(page, /\?done=rotated$/, () => page.getByRole("button", { name: "Rotate HMAC key" }).click());
      await page.getByText("A new HMAC key is in use from now on").waitFor();
      const newKey = (await page.locator("code.secret").last().textContent())!.trim();
      assert.match(newKey, /^[0-9a-f]{64}$/);
      assert.notEqual(newKey, hmacKey);
      await Promise.all([page.waitForLoadState(), page.getByRole("button", { name: "Send a test message" }).click()]);
      const [, , afterRotation] = await receiver.waitFor(3);
      assert.ok(verifyPaymentWebhook(afterRotation!.body, newKey).valid, "signed with the new key");
      assert.equal(verifyPaymentWebhook(afterRotation!.body, hmacKey).valid, false, "not with the old one");
    });

    test("create an API key (shown once) and revoke it: 401 at once", async () => {
      const { page } = merchant;
      await clickAndWait(page, /\/portal\/developers$/, () =>
        page.getByRole("navigation").getByRole("link", { name: "Developers" }).click(),
      );
      await page.getByLabel("Name", { exact: true }).fill("Journey key");
      await Promise.all([page.waitForLoadState(), page.getByRole("button", { name: "Create key" }).click()]);
      await page.getByRole("heading", { name: "Your new API key" }).waitFor();
      const apiKey = (await page.locator("code.secret").textContent())!.trim();
      const headers = { "x-api-key": apiKey };
      assert.equal((await fetch(`${server.baseUrl}/api/v1/paymentlinks`, { headers })).status, 200);
      await page.getByRole("navigation").getByRole("link", { name: "Developers" }).click();
      await page.waitForLoadState();
      assert.equal(await page.getByText(apiKey).count(), 0, "never shown again");
      await clickAndWait(page, /\/revoke$/, () => page.getByRole("link", { name: "Revoke: Journey key" }).click());
      await page.getByRole("heading", { name: "Revoke the key “Journey key”?" }).waitFor();
      assert.equal((await fetch(`${server.baseUrl}/api/v1/paymentlinks`, { headers })).status, 200, "asking changes nothing");
      await clickAndWait(page, /\/portal\/developers\?done=revoked$/, () => page.getByRole("button", { name: "Revoke" }).click());
      assert.equal((await fetch(`${server.baseUrl}/api/v1/paymentlinks`, { headers })).status, 401);
    });

    test("edit a theme: the preview follows the form as it is typed, and the change is saved", async () => {
      const { page } = merchant;
      await clickAndWait(page, /\/portal\/themes$/, () => page.getByRole("navigation").getByRole("link", { name: "Themes" }).click());
      await clickAndWait(page, /\/portal\/themes\/[^/]+$/, () => page.getByRole("link", { name: "Test shop" }).click());
      const preview = page.locator("[data-preview]");
      const payColour = () => preview.locator(".p-pay").evaluate((e) => getComputedStyle(e).backgroundColor);
      assert.equal(await payColour(), "rgb(18, 52, 86)", "#123456, the saved colour");
      await page.getByLabel("Name shown on the checkout page").fill("Ullarbúðin");
      await page.getByLabel("Main colour").fill("#0b6e4f");
      assert.equal(await preview.locator("[data-preview-name]").textContent(), "Ullarbúðin");
      assert.equal(await payColour(), "rgb(11, 110, 79)");
      await clickAndWait(page, /saved=1$/, () => page.getByRole("button", { name: "Save" }).click());
      assert.equal(await payColour(), "rgb(11, 110, 79)", "the saved theme, drawn by the server");
      await page.reload();
      assert.equal(await page.getByLabel("Name shown on the checkout page").inputValue(), "Ullarbúðin");
    });

    test("export the day's payments as CSV: the sale with its amounts and the refund", async () => {
      const { page } = merchant;
      await clickAndWait(page, /\/portal\/payments$/, () => page.getByRole("navigation").getByRole("link", { name: "Payments" }).click());
      const today = new Date().toISOString().slice(0, 10);
      await page.getByLabel("From").fill(today);
      await page.getByLabel("To").fill(today);
      await clickAndWait(page, /from=.*to=/, () => page.getByRole("button", { name: "Show" }).click());
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download CSV" }).click()]);
      assert.equal(download.suggestedFilename(), `paylink-payments-${today}-${today}.csv`);
      const file = await readFile((await download.path())!, "utf8");
      assert.ok(file.startsWith("\uFEFF"), "a byte-order mark: Excel reads the file as UTF-8");
      const csv = file.slice(1);
      const [header, ...rows] = csv.trimEnd().split("\r\n");
      assert.equal(rows.length, 1, csv);
      const cells = header!.split(",").map((column, i) => [column, rows[0]!.split(",")[i]] as const);
      const row = Object.fromEntries(cells);
      assert.match(row.date!, new RegExp(`^${today}T`));
      assert.match(row.payfacReference!, /\S/);
      assert.match(row.refundDates!, new RegExp(`^${today}T[\\d:.]+Z$`), "when the refund completed");
      assert.deepEqual(
        { ...row, date: "", payfacReference: "", refundDates: "" },
        {
          date: "",
          checkoutReference,
          payfacReference: "",
          paymentLinkReference: reference,
          description: "Journey order 17",
          amount: "12860",
          currency: "ISK",
          cardBrand: row.cardBrand,
          cardLast4: "1111",
          result: "approved",
          refundedAmount: "6430",
          paymentType: "linkSale",
          merchantReference: "",
          amountMinorUnits: "1286000",
          refundedMinorUnits: "643000",
          refundDates: "",
          shopperEmail: "",
        },
      );
      assert.match(row.cardBrand!, /^(VI|Visa|visa)$/);
    });

    test("sign out: the old session cookie no longer opens a page", async () => {
      const { page, context } = merchant;
      const session = (await context.cookies()).find((c) => c.name === "paylink_session");
      assert.ok(session);
      await clickAndWait(page, /sign-in\?notice=signed-out/, () => page.getByRole("button", { name: "Sign out" }).click());
      const replayed = await fetch(`${server.baseUrl}/portal/overview`, {
        headers: { cookie: `paylink_session=${session.value}` },
        redirect: "manual",
      });
      assert.equal(replayed.status, 303);
      assert.match(replayed.headers.get("location")!, /\/portal\/sign-in/);
      assert.deepEqual(merchant.problems, []);
      assert.deepEqual(shopper.problems, []);
    });
  });
}
