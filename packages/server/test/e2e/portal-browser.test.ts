// Every page of the portal in Chromium, at 375 px and at desktop width, in each state a person
// meets it in (a form with its errors, a new secret shown once, a payment with its refunds, a
// delivery log opened): no serious or critical axe violation, no sideways scroll, no console
// error; a screenshot of each in the screenshot folder. What the pages show does not depend on
// the database, so this runs on the first backend only (the journey runs on both).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import type { Browser, Page } from "playwright-core";
import { WebhookWorker } from "../../src/webhooks/worker.ts";
import { launchChromium, skipWithoutChromium } from "../support/browser.ts";
import { getLink } from "../support/fixtures.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { testKeyring } from "../support/keyring.ts";
import { checkPage, DESKTOP, PHONE, signInWithForm, watchedPage } from "../support/page-checks.ts";
import { addPortalUser, type PortalClient, signedIn } from "../support/portal.ts";
import { createLink, pay } from "../support/shopper.ts";
import { waitUntil } from "../support/wait.ts";
import { type Receiver, startReceiver } from "../webhooks/support.ts";

const EMAIL = "owner@example.com";

describe("portal pages in Chromium", { skip: skipWithoutChromium }, () => {
  let server: TestServer;
  let browser: Browser;
  let receiver: Receiver;
  let worker: WebhookWorker;
  let reference: string;
  let busyReference: string;
  let checkoutReference: string;
  let webhookPath: string;

  before(async () => {
    server = await startTestServer({ allowPrivateTargets: true });
    await addPortalUser(server, server, EMAIL);
    receiver = await startReceiver();
    worker = new WebhookWorker({ db: server.db, keyring: testKeyring(), allowPrivate: true, idleIntervalMs: 100 }).start();
    // The data the pages show, made the quick way (the journey makes it through the pages).
    const portal: PortalClient = await signedIn(server, server, "setup@example.com");
    const developers = await portal.get("/portal/developers");
    const added = await portal.post("/portal/developers/webhooks", { url: receiver.url }, developers);
    webhookPath = new URL(added.location!, server.baseUrl).pathname;
    reference = await createLink(server, {
      description: "Lopapeysa order with a long description that a phone has to wrap somewhere",
      amount: 1178000,
      items: [
        { name: "Lopapeysa, handprjónuð", quantity: 1, unitPrice: 1090000, amountWithoutDiscount: 1090000, amount: 1090000 },
        { name: "Ullarsokkar", quantity: 2, unitPrice: 49000, amountWithoutDiscount: 98000, amount: 88000 },
      ],
      shopperInfo: [
        { field: "FullName", requirementType: "Required" },
        { field: "EmailAddress", requirementType: "Optional" },
      ],
    });
    await pay(server.baseUrl, reference, { cardNumber: "4000 0000 0000 0002", cardExpiry: "08/40", cardCvc: "737", FullName: "Ari" });
    await pay(server.baseUrl, reference, {
      cardNumber: "4111 1111 1111 1111",
      cardExpiry: "08/40",
      cardCvc: "737",
      FullName: "Anna Jónsdóttir",
      EmailAddress: "anna@example.is",
    });
    checkoutReference = (await getLink(server, reference)).submissions.find((s: any) => s.completed).checkoutReference;
    const payment = await portal.get(`/portal/payments/${checkoutReference}`);
    const refunded = await portal.post(
      `/portal/payments/${checkoutReference}/refund`,
      { amount: "2000", refundReason: "RETURN", attempt: randomUUID() },
      payment,
    );
    assert.equal(refunded.status, 303);
    await waitUntil(async () => /· Refund · Delivered/.test((await portal.get(webhookPath)).text));
    // A link with more submissions than one page of its detail shows (fifty), for the pager.
    busyReference = await createLink(server, {
      description: "Busy link",
      amount: 49000,
      shopperInfo: [{ field: "FullName", requirementType: "Required" }],
    });
    await sql`INSERT INTO submissions (id, link_reference, answers, amount, currency, state, completed, created_at)
              SELECT 'busy-' || g, ${busyReference}, jsonb_build_array(jsonb_build_object('field', 'FullName', 'value', 'Shopper ' || g)),
                     49000, 'ISK', 'declined', false, now() - g * interval '1 minute'
              FROM generate_series(1, 60) g`.execute(server.db);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await worker?.stop();
    await receiver?.close();
    await server?.close();
  });

  /** Submits the form that `button` belongs to and waits for the answer to load. */
  async function submit(page: Page, button: string): Promise<void> {
    await Promise.all([page.waitForResponse((r) => r.request().isNavigationRequest()), page.getByRole("button", { name: button }).click()]);
    await page.waitForLoadState();
  }

  for (const [size, viewport] of [
    ["phone", PHONE],
    ["desktop", DESKTOP],
  ] as const) {
    test(`every portal page on a ${size}: accessible, no sideways scroll, no console error`, async () => {
      // 401: the wrong password, 400: a form with errors, 404: the not-found page; all on purpose.
      const { context, page, problems } = await watchedPage(browser, viewport, { expectedStatuses: [400, 401, 404] });
      try {
        const visit = async (path: string, name: string) => {
          await page.goto(`${server.baseUrl}${path}`);
          await checkPage(page, `portal-${name}`);
        };
        await visit("/portal/overview", "sign-in-from-a-deep-link");
        await page.getByLabel("E-mail").fill(EMAIL);
        await page.getByLabel("Password").fill("not the password");
        await submit(page, "Sign in");
        assert.match((await page.getByRole("alert").textContent())!, /wrong/);
        await checkPage(page, "portal-sign-in-wrong-password");
        await signInWithForm(page, server.baseUrl, EMAIL);

        await visit("/portal/overview", "overview");
        await visit("/portal/links", "links");
        await visit("/portal/links?status=Active&q=Lopapeysa", "links-filtered");
        await visit("/portal/links/new", "link-new");
        await page.locator("#amount").fill("lots");
        await submit(page, "Create link");
        assert.equal(await page.locator("#amount").getAttribute("aria-invalid"), "true");
        assert.equal(await page.locator("#amount-error").textContent(), "Enter an amount such as 4890 or 12.50.");
        await checkPage(page, "portal-link-new-with-errors");
        await visit(`/portal/links/${reference}`, "link-detail");
        await visit(`/portal/links/${busyReference}`, "link-detail-busy");
        await page.getByRole("link", { name: "Next" }).click();
        await page.waitForURL(/\?page=2$/);
        await checkPage(page, "portal-link-detail-busy-page-2");
        await visit(`/portal/links/${reference}/edit`, "link-edit");
        await visit("/portal/payments", "payments");
        await visit(`/portal/payments/${checkoutReference}`, "payment-detail-with-refund");
        await page.getByLabel(/Amount to refund/).fill("999999");
        await submit(page, "Refund");
        await page.getByRole("alert").waitFor();
        await checkPage(page, "portal-payment-detail-refund-refused");
        await page.getByLabel(/Amount to refund/).fill("100");
        await submit(page, "Refund");
        await checkPage(page, "portal-payment-refund-question");
        await visit(`/portal/payments/${checkoutReference}/reverse`, "payment-reverse-question");

        await visit("/portal/developers", "developers");
        await page.getByLabel("Name", { exact: true }).fill(`Shop server (${size})`);
        await submit(page, "Create key");
        await checkPage(page, "portal-developers-new-api-key");
        await visit(webhookPath, "webhook-endpoint");
        await page.locator("[data-delivery] summary").first().click();
        await checkPage(page, "portal-webhook-endpoint-delivery-open");
        await submit(page, "Show keys");
        await checkPage(page, "portal-webhook-endpoint-keys-shown");
        await visit(`${webhookPath}/delete`, "webhook-endpoint-delete-question");

        await visit("/portal/themes", "themes");
        await visit(`/portal/themes/${server.themeKey}`, "theme-edit-with-preview");
        await page.getByLabel(/^Logo/).fill("ftp://logo.example.com/logo.png");
        await submit(page, "Save");
        await checkPage(page, "portal-theme-edit-with-errors");
        await visit("/portal/links/NoSuchLink000", "not-found");

        await Promise.all([page.waitForURL(/sign-in\?notice=signed-out/), page.getByRole("button", { name: "Sign out" }).click()]);
        await checkPage(page, "portal-signed-out");
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }
});
