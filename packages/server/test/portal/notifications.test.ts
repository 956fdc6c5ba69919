// /portal/account/notifications over real HTTP: the signed-in user's "you got paid" opt-in and
// mail language, saved with a 303 to the page, in both languages, only for that user.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { type PortalClient, signedIn } from "../support/portal.ts";

const PATH = "/portal/account/notifications";

for (const backend of testBackends()) {
  describe(`portal notifications (${backend.name})`, () => {
    let server: TestServer;
    let portal: PortalClient;
    let colleague: PortalClient;
    before(async () => {
      server = await startTestServer({ backend });
      portal = await signedIn(server, server, "me@example.com");
      colleague = await signedIn(server, server, "colleague@example.com");
    });
    after(() => server?.close());

    async function settingsOf(email: string) {
      return server.db
        .selectFrom("portal_users")
        .select(["notify_payments", "mail_language"])
        .where("email", "=", email)
        .executeTakeFirstOrThrow();
    }

    test("off by default; opting in is saved for this user only, then the page says so", async () => {
      const page = await portal.get(`${PATH}?lang=en`);
      assert.equal(page.status, 200);
      assert.match(page.text, /E-mail me each time a payment is approved/);
      assert.doesNotMatch(page.html, /name="notifyPayments" value="1"[^>]*checked/);
      const saved = await portal.post(PATH, { notifyPayments: "1", mailLanguage: "is" }, page);
      assert.equal(saved.status, 303);
      assert.equal(saved.location, `${PATH}?saved=1`);
      assert.deepEqual(await settingsOf("me@example.com"), { notify_payments: true, mail_language: "is" });
      assert.deepEqual(await settingsOf("colleague@example.com"), { notify_payments: false, mail_language: "en" });
      const after = await portal.get(saved.location!);
      assert.match(after.text, /Settings saved\./);
      assert.match(after.html, /name="notifyPayments" value="1"[^>]*checked/);
      assert.match(after.html, /value="is" checked/);

      const off = await portal.post(PATH, { mailLanguage: "en" }, after);
      assert.equal(off.status, 303);
      assert.deepEqual(await settingsOf("me@example.com"), { notify_payments: false, mail_language: "en" });
    });

    test("in Icelandic, and a language that is neither is refused with a 400 that says why", async () => {
      const page = await colleague.get(`${PATH}?lang=is`);
      assert.match(page.text, /Tilkynningar í tölvupósti/);
      const refused = await colleague.post(PATH, { notifyPayments: "1", mailLanguage: "de" }, page);
      assert.equal(refused.status, 400);
      assert.match(refused.text, /Veldu íslensku eða ensku\./);
      assert.deepEqual(await settingsOf("colleague@example.com"), { notify_payments: false, mail_language: "en" });
    });

    test("a post without the session's CSRF token changes nothing", async () => {
      const refused = await portal.post(PATH, { notifyPayments: "1", mailLanguage: "is", csrf: "forged" });
      assert.equal(refused.status, 403);
      assert.equal((await settingsOf("me@example.com")).notify_payments, false);
    });
  });
}
