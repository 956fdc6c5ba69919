// What every page a person sees must pass in the browser tests, in one place: no moderate, serious
// or critical axe violation, no sideways scroll at its width, no console error or uncaught exception;
// and a screenshot of it in the git-ignored screenshot folder, for a person to look at. Also the
// portal's sign-in through its form, which every browser test of the portal begins with.
import assert from "node:assert/strict";
import { AxeBuilder } from "@axe-core/playwright";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { SCREENSHOTS } from "./browser.ts";
import { PORTAL_PASSWORD } from "./portal.ts";

export const PHONE = { width: 375, height: 812 };
export const DESKTOP = { width: 1280, height: 900 };

export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught exceptions so far; the test asserts it stays empty. */
  problems: string[];
}

/**
 * A new browser context (its own cookies, as a second person's browser) and a page in it whose
 * console errors are recorded. `expectedStatuses` are answers the test asks for on purpose (a
 * refused form is 400, a declined card 402): Chromium logs each such response as a console error.
 */
export async function watchedPage(
  browser: Browser,
  viewport: { width: number; height: number } = DESKTOP,
  options: { locale?: string; expectedStatuses?: number[]; javaScript?: boolean } = {},
): Promise<WatchedPage> {
  const context = await browser.newContext({
    viewport,
    deviceScaleFactor: 1,
    locale: options.locale ?? "en-GB",
    acceptDownloads: true,
    javaScriptEnabled: options.javaScript ?? true,
  });
  const page = await context.newPage();
  // A step that cannot happen fails in seconds, not after the default half minute.
  page.setDefaultTimeout(10_000);
  const problems: string[] = [];
  const expected = new RegExp(`status of (${(options.expectedStatuses ?? []).join("|") || "none"}) `);
  page.on("console", (message) => {
    if (message.type() === "error" && !expected.test(message.text())) problems.push(`${page.url()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`${page.url()}: ${error.message}`));
  return { context, page, problems };
}

/** Signs in through the portal's form and waits for the overview. */
export async function signInWithForm(page: Page, baseUrl: string, email: string, password = PORTAL_PASSWORD): Promise<void> {
  await page.goto(`${baseUrl}/portal/sign-in`);
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(password);
  await Promise.all([page.waitForURL(/\/portal\/overview$/), page.getByRole("button", { name: "Sign in" }).click()]);
}

/**
 * The page as it is now: a full-page screenshot named `name` (in `screenshots`, a folder path
 * ending in /, for the ones checked in under docs/), then axe (moderate, serious and
 * critical violations fail), then no element wider than the window and no sideways scroll.
 */
export async function checkPage(page: Page, name: string, options: { screenshots?: string } = {}): Promise<void> {
  const width = page.viewportSize()?.width ?? 0;
  // Times ([data-when]) are covered, so a checked-in screenshot changes only when the page does.
  await page.screenshot({
    path: `${options.screenshots ?? SCREENSHOTS}${name}-${width}.png`,
    fullPage: true,
    mask: [page.locator("[data-when]")],
    maskColor: "#e8edf3",
  });
  const results = await new AxeBuilder({ page }).analyze();
  const found = results.violations.filter((v) => v.impact === "moderate" || v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(
    found.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
    [],
    `${name} at ${width}px (${page.url()})`,
  );
  const wide = await page.evaluate(() =>
    [...document.querySelectorAll("body *")]
      .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
      .map((e) => `${e.tagName.toLowerCase()}.${e.className}`)
      .slice(0, 5)
      .join(" "),
  );
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `${name} scrolls sideways by ${overflow}px at ${width}px: ${wide}`);
}
