// Every action in the portal that destroys, takes away or moves money, walked in Chromium at
// 375 px and 1280 px, in Icelandic and English, and once more with JavaScript turned off (where axe,
// which runs in the page, cannot; the pages work the same without it): its button leads to a
// question page (a GET that changes nothing), the question's button does it, and the result page
// says what happened; the change is in the audit log; reloading the result page changes nothing
// more. So do the actions that create something shown once (an API key, a webhook endpoint's
// keys, an invitation): a reload shows no second secret and makes nothing twice. A refund's
// question posted a second time (a double click, "Back" and submit) refunds once. Each question
// and result is axe clean (moderate included) without sideways scroll; screenshots of two of the
// four runs go to docs/screenshots/portal/. What the pages show does not depend on the database:
// first backend only (test/portal/ask-once covers the money on both).
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { saveCardOf, sellLink } from "../support/after-sale.ts";
import { launchChromium, skipWithoutChromium } from "../support/browser.ts";
import { getLink } from "../support/fixtures.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { checkPage, DESKTOP, PHONE, watchedPage } from "../support/page-checks.ts";
import { addPortalUser, PORTAL_PASSWORD, PortalClient } from "../support/portal.ts";
import { createLink } from "../support/shopper.ts";

const SHOTS = fileURLToPath(new URL("../../../../docs/screenshots/portal/", import.meta.url));

/** A destructive action: where its button is, how to reach its question, and what it changes. */
interface Action {
  name: string;
  /** The page with the action's button. */
  from: string;
  /** Clicks (or fills and submits) what leads to the question. */
  ask(page: Page): Promise<void>;
  /** The result page's address. */
  done: RegExp;
  /** What the action changes, read from the database: the same before and after asking, different after doing. */
  state(): Promise<unknown>;
}

describe("destructive actions ask first and say what happened, in Chromium", { skip: skipWithoutChromium }, () => {
  let server: TestServer;
  let browser: Browser;

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const runs = [
    { lang: "is", viewport: DESKTOP, keep: true, javaScript: true },
    { lang: "en", viewport: PHONE, keep: true, javaScript: true },
    { lang: "en", viewport: DESKTOP, keep: false, javaScript: true },
    { lang: "is", viewport: PHONE, keep: false, javaScript: true },
    { lang: "is", viewport: DESKTOP, keep: false, javaScript: false },
  ] as const;

  for (const { lang, viewport, keep, javaScript } of runs) {
    const how = javaScript ? "" : " without JavaScript";
    test(`${lang} at ${viewport.width}px${how}: each action asks, does, says, and a reload repeats nothing`, async () => {
      const tag = `${lang}-${viewport.width}${javaScript ? "" : "-nojs"}`;
      const check = async (page: Page, name: string) => {
        if (javaScript) await checkPage(page, `${name}-${lang}`, keep ? { screenshots: SHOTS } : {});
      };
      const owner = await addPortalUser(server, server, `owner-${tag}@example.com`, "owner");
      const colleague = await addPortalUser(server, server, `colleague-${tag}@example.com`, "viewer");
      // Two more sessions of the owner (another browser each): one is ended, then the rest.
      const elsewhere = [new PortalClient(server.baseUrl), new PortalClient(server.baseUrl)];
      for (const other of elsewhere) await other.signIn(owner.email, owner.password);
      const invited = `invited-${tag}@example.com`;
      const users = await elsewhere[0]!.get("/portal/users");
      assert.equal((await elsewhere[0]!.post("/portal/users/invitations", { email: invited, role: "developer" }, users)).status, 303);
      const linkReference = await createLink(server, { description: `Gjafabréf ${tag}`, amount: 990000 });
      const sale = await sellLink(server, 489000);
      const paymentPath = `/portal/payments/${(await getLink(server, sale.linkReference)).submissions[0].checkoutReference}`;
      const card = await saveCardOf(server, { email: `card-${tag}@example.com`, name: "Anna Jónsdóttir" });
      const cardPath = `/portal/saved-cards/${card.checkoutReference}`;

      const { context, page, problems } = await watchedPage(browser, viewport, {
        locale: lang === "is" ? "is-IS" : "en-GB",
        javaScript,
      });
      const go = (path: string) => page.goto(`${server.baseUrl}${path}`);
      await go(`/portal/sign-in?lang=${lang}`);
      await page.locator("#email").fill(owner.email);
      await page.locator("#password").fill(PORTAL_PASSWORD);
      await Promise.all([page.waitForURL(/\/portal\/overview$/), page.locator("form button[type=submit]").first().click()]);
      const ownSessionIds = async () =>
        (await server.db.selectFrom("portal_sessions").select("id").where("user_id", "=", owner.userId).orderBy("id").execute()).map(
          (s) => s.id,
        );
      const auditCount = async () =>
        Number(
          (
            await server.db
              .selectFrom("audit_log")
              .select((e) => e.fn.countAll().as("n"))
              .where("merchant_id", "=", server.merchantId)
              .executeTakeFirstOrThrow()
          ).n,
        );
      const clickHref = (suffix: string) => (p: Page) => p.locator(`main a.button[href$="${suffix}"]`).first().click();

      /** Asks, checks that asking changed nothing, does it, checks the result page and its reload. */
      async function walk(action: Action): Promise<void> {
        await go(action.from);
        const before = await action.state();
        await action.ask(page);
        await page.locator("[data-confirm]").waitFor();
        assert.ok(new URL(page.url()).pathname !== action.from, `${action.name}: the question is a page of its own`);
        assert.deepEqual(await action.state(), before, `${action.name}: asking changed nothing`);
        await check(page, `${action.name}-question`);
        const audited = await auditCount();
        await Promise.all([page.waitForURL(action.done), page.locator("[data-confirm] button[type=submit]").click()]);
        const changed = await action.state();
        assert.notDeepEqual(changed, before, `${action.name}: the answer did it`);
        assert.ok(await page.locator("main [role=status]").first().isVisible(), `${action.name}: the result page says what happened`);
        assert.ok((await auditCount()) > audited, `${action.name}: the audit log has it`);
        await check(page, `${action.name}-done`);
        const afterwards = await auditCount();
        await page.reload();
        assert.deepEqual(await action.state(), changed, `${action.name}: reloading the result page repeats nothing`);
        assert.equal(await auditCount(), afterwards, `${action.name}: nor writes to the audit log`);
      }

      // An API key: created (its secret shown once; a reload makes no second key and shows none), then revoked.
      const keys = () =>
        server.db.selectFrom("api_keys").select(["id", "revoked_at"]).where("name", "=", `key-${tag}`).orderBy("id").execute();
      await go("/portal/developers");
      await page.locator("#key-name").fill(`key-${tag}`);
      await Promise.all([page.waitForURL(/done=key-created/), page.locator("form[action='/portal/developers/api-keys'] button").click()]);
      assert.equal(await page.locator("[data-new-key]").count(), 1, "the new key is shown");
      assert.equal((await keys()).length, 1);
      await page.reload();
      assert.equal(await page.locator("[data-new-key]").count(), 0, "a reload shows the secret no more");
      assert.equal((await keys()).length, 1, "a reload makes no second key");
      const keyId = (await keys())[0]!.id;
      await walk({
        name: "api-key-revoke",
        from: "/portal/developers",
        ask: clickHref(`/api-keys/${keyId}/revoke`),
        done: /done=revoked/,
        state: async () => (await keys()).map((k) => k.revoked_at !== null),
      });

      // A webhook endpoint: added (keys shown once), its HMAC key rotated, disabled, deleted.
      const url = `https://hooks.example.com/paylink/${tag}`;
      const endpoints = () =>
        server.db.selectFrom("webhook_endpoints").select(["id", "hmac_key", "enabled"]).where("url", "=", url).execute();
      await go("/portal/developers");
      await page.locator("#webhook-url").fill(url);
      await Promise.all([page.waitForURL(/done=added/), page.locator("form[action='/portal/developers/webhooks'] button").click()]);
      assert.equal(await page.locator("[data-secrets]").count(), 1, "the endpoint's keys are shown");
      await page.reload();
      assert.equal(await page.locator("[data-secrets]").count(), 0, "a reload shows the keys no more");
      assert.equal((await endpoints()).length, 1, "a reload adds no second endpoint");
      const endpointPath = `/portal/developers/webhooks/${(await endpoints())[0]!.id}`;
      await walk({ name: "endpoint-rotate", from: endpointPath, ask: clickHref("/rotate"), done: /done=rotated/, state: endpoints });
      await walk({ name: "endpoint-disable", from: endpointPath, ask: clickHref("/disable"), done: /done=disabled/, state: endpoints });
      await walk({
        name: "endpoint-delete",
        from: endpointPath,
        ask: clickHref("/delete"),
        done: /done=endpoint-deleted/,
        state: endpoints,
      });

      // A link disabled.
      await walk({
        name: "link-disable",
        from: `/portal/links/${linkReference}`,
        ask: clickHref("/disable"),
        done: /done=disabled/,
        state: async () =>
          (await server.db.selectFrom("payment_links").select("disabled").where("reference", "=", linkReference).executeTakeFirstOrThrow())
            .disabled,
      });

      // A part refunded, its question posted once more (as a double click would), then the rest reversed.
      const modifications = () =>
        server.db
          .selectFrom("refunds")
          .select(["kind", "amount"])
          .where("original_payfac_reference", "=", sale.payfacReference)
          .orderBy("created_at")
          .execute();
      let repeat: { action: string; form: Record<string, string> } | undefined;
      await walk({
        name: "payment-refund",
        from: paymentPath,
        ask: async (p) => {
          await p.locator("#refund-amount").fill("1000");
          await p.locator("#refund-amount").press("Enter");
          const form = p.locator("[data-confirm] form");
          await form.waitFor();
          const fields: Record<string, string> = {};
          for (const input of await form.locator("input[type=hidden]").all()) {
            fields[(await input.getAttribute("name"))!] = (await input.getAttribute("value")) ?? "";
          }
          repeat = { action: (await form.getAttribute("action"))!, form: fields };
        },
        done: /refunded=1/,
        state: modifications,
      });
      const again = await page.request.post(`${server.baseUrl}${repeat!.action}`, { form: repeat!.form, maxRedirects: 0 });
      assert.equal(again.status(), 303, "the same question posted again answers as the first did");
      assert.deepEqual(await modifications(), [{ kind: "refund", amount: 100000 }], "and refunds nothing more");
      await walk({ name: "payment-reverse", from: paymentPath, ask: clickHref("/reverse"), done: /reversed=1/, state: modifications });

      // A saved card charged (money moves: it asks too), then disabled.
      const charges = () => server.db.selectFrom("token_payments").select(["amount", "state"]).where("token", "=", card.token).execute();
      await walk({
        name: "saved-card-charge",
        from: cardPath,
        ask: async (p) => {
          await p.locator("#charge-amount").fill("4990");
          await p.locator("#charge-reference").fill(`renewal-${tag}`);
          await p.locator("#charge-reference").press("Enter");
        },
        done: /charged=/,
        state: charges,
      });
      await walk({
        name: "saved-card-disable",
        from: cardPath,
        ask: clickHref("/disable"),
        done: /disabled=1/,
        state: async () => (await server.db.selectFrom("disabled_tokens").select("token").where("token", "=", card.token).execute()).length,
      });

      // A colleague's role changed, then the colleague removed; an invitation revoked.
      const colleagueRow = () => server.db.selectFrom("portal_users").select("role").where("id", "=", colleague.userId).executeTakeFirst();
      await walk({
        name: "user-role",
        from: "/portal/users",
        ask: async (p) => {
          const row = p.locator(`tr[data-user="${colleague.email}"]`);
          await row.locator("select").selectOption("developer");
          await row.locator("button[type=submit]").click();
        },
        done: /done=role-changed/,
        state: colleagueRow,
      });
      await walk({
        name: "user-remove",
        from: "/portal/users",
        ask: clickHref(`/users/${colleague.userId}/remove`),
        done: /done=removed/,
        state: colleagueRow,
      });
      await walk({
        name: "invitation-revoke",
        from: "/portal/users",
        ask: (p) => p.locator(`[data-invitation="${invited}"] a[href$="/revoke"]`).click(),
        done: /done=revoked/,
        state: async () =>
          (await server.db.selectFrom("portal_invitations").select("revoked_at").where("email", "=", invited).executeTakeFirstOrThrow())
            .revoked_at !== null,
      });

      // One other session ended, then all the others.
      await walk({ name: "session-end", from: "/portal/account", ask: clickHref("/end"), done: /done=ended/, state: ownSessionIds });
      await elsewhere[1]!.signIn(owner.email, owner.password);
      await walk({
        name: "sessions-end-others",
        from: "/portal/account",
        ask: clickHref("/sessions/end-others"),
        done: /done=others-ended/,
        state: ownSessionIds,
      });
      assert.equal((await ownSessionIds()).length, 1, "only this browser's session is left");

      // The audit log page shows each of them: who (the owner), what, and when.
      await go(`/portal/audit?lang=${lang}`);
      for (const action of [
        "api-key.create",
        "api-key.revoke",
        "webhook.create",
        "webhook.secret-rotate",
        "webhook.disable",
        "webhook.delete",
        "link.disable",
        "payment.refund",
        "payment.reverse",
        "token.charge",
        "token.disable",
        "user.role-change",
        "user.remove",
        "user.invite-revoke",
        "user.sessions-end",
      ]) {
        const row = page.locator(`table[data-audit] tbody tr[data-action="${action}"]`).filter({ hasText: owner.email }).first();
        assert.ok(await row.isVisible(), `${action} by ${owner.email} is on the audit page`);
        const when = new Date((await row.locator("time").getAttribute("datetime")) ?? "");
        assert.ok(Date.now() - when.getTime() < 10 * 60_000, `${action} says when: ${when.toISOString()}`);
      }
      assert.deepEqual(problems, []);
      await context.close();
    });
  }
});
