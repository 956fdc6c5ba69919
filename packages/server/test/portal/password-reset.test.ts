// A forgotten password over real HTTP and a real SMTP conversation (docs/portal.md#password-reset):
// the request answers the same whether or not the account exists and is braked per e-mail; the
// mailed link sets a new password once, within an hour, ends every session, and leaves two-factor
// sign-in asking for its code; requests and resets are in the audit log.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { MAX_FAILURES_PER_ACCOUNT } from "../../src/domain/portal/signin-brake.ts";
import { type AccountMail, linkIn, startAccountMail } from "../support/account-mail.ts";
import { auditRowsOf } from "../support/audit.ts";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { addPortalUser, PortalClient } from "../support/portal.ts";
import { enrol } from "../support/two-factor.ts";

const HOUR = 3_600_000;
const NEW_PASSWORD = "a fresh new password";

for (const backend of testBackends()) {
  describe(`portal password reset (${backend.name})`, () => {
    let server: TestServer;
    let mail: AccountMail;
    let clock = 0;
    before(async () => {
      server = await startTestServer({ backend, now: () => new Date(Date.now() + clock) });
      mail = await startAccountMail(server);
    });
    after(async () => {
      await mail?.close();
      await server?.close();
    });
    beforeEach(() => {
      clock = 0;
    });

    async function askForReset(client: PortalClient, email: string) {
      const form = await client.get("/portal/reset");
      return client.post("/portal/reset", { email }, form);
    }

    test("the same answer for an account and for none; the link resets once and ends every session", async () => {
      const user = await addPortalUser(server, server, "forgetful@example.com", "viewer");
      const elsewhere = new PortalClient(server.baseUrl);
      assert.equal((await elsewhere.signIn(user.email, user.password)).status, 303);
      const signIn = await new PortalClient(server.baseUrl).get("/portal/sign-in");
      assert.match(signIn.html, /href="\/portal\/reset">Forgot your password\?/);

      const client = new PortalClient(server.baseUrl);
      const known = await askForReset(client, user.email);
      const unknown = await askForReset(new PortalClient(server.baseUrl), "nobody-here@example.com");
      assert.equal(known.status, 303);
      assert.equal(unknown.status, 303);
      assert.equal(known.location, unknown.location, "the answer tells nothing");
      const answer = await client.get(known.location!);
      assert.match(answer.text, /If an account exists for that address, we sent it a link/);
      const messages = await mail.deliver();
      assert.deepEqual(
        messages.map((m) => m.to),
        [user.email],
        "mail only to the account",
      );
      const link = linkIn(messages[0]!, "reset");

      const form = await client.get(link);
      assert.equal(form.status, 200);
      assert.equal((await client.post(link, { password: "short" }, form)).status, 400);
      const done = await client.post(link, { password: NEW_PASSWORD }, form);
      assert.equal(done.status, 303);
      assert.equal(done.location, "/portal/sign-in?notice=password-reset");
      assert.match((await client.get(done.location!)).text, /Your password was changed and every session was ended/);
      assert.equal((await elsewhere.get("/portal/overview")).status, 303, "the other session ended");
      assert.equal((await new PortalClient(server.baseUrl).signIn(user.email, user.password)).status, 401, "the old password is gone");
      assert.equal((await new PortalClient(server.baseUrl).signIn(user.email, NEW_PASSWORD)).status, 303);

      const again = await client.get(link);
      assert.equal(again.status, 410);
      assert.match(again.text, /already used/);
      assert.equal((await client.post(link, { password: "yet another password" }, form)).status, 410);
      assert.equal((await client.get(`/portal/reset/${"B".repeat(43)}`)).status, 404, "a wrong token");
      assert.equal((await client.get("/portal/reset/short")).status, 404);

      const actions = (await auditRowsOf(server.db, server.merchantId))
        .filter((row) => row.object_id === user.userId)
        .map((row) => row.action);
      assert.ok(actions.includes("user.password-reset-request") && actions.includes("user.password-reset"), actions.join());
    });

    test("a link is dead after an hour, and an older link dies when a newer one is used", async () => {
      const user = await addPortalUser(server, server, "slow@example.com", "viewer");
      const client = new PortalClient(server.baseUrl);
      await askForReset(client, user.email);
      await askForReset(client, user.email);
      const [first, second] = (await mail.deliver()).map((m) => linkIn(m, "reset"));
      clock = HOUR + 1000;
      const late = await client.get(first!);
      assert.equal(late.status, 410);
      assert.match(late.text, /has expired/);
      assert.match((await client.get(`${first}?lang=is`)).text, /útrunninn/);
      await client.get("/portal/reset?lang=en");
      clock = 0;
      const form = await client.get(second!);
      assert.equal((await client.post(second!, { password: NEW_PASSWORD }, form)).status, 303);
      assert.equal((await client.get(first!)).status, 410, "the older link died with the reset");
    });

    test("two-factor is still asked for after a reset", async () => {
      const user = await addPortalUser(server, server, "two-factor-reset@example.com", "viewer");
      const client = new PortalClient(server.baseUrl);
      await client.signIn(user.email, user.password);
      await enrol(client);
      await askForReset(new PortalClient(server.baseUrl), user.email);
      const [message] = await mail.deliver();
      const link = linkIn(message!, "reset");
      const other = new PortalClient(server.baseUrl);
      await other.post(link, { password: NEW_PASSWORD }, await other.get(link));
      const signIn = await new PortalClient(server.baseUrl).signIn(user.email, NEW_PASSWORD);
      assert.equal(signIn.status, 303);
      assert.match(signIn.location!, /^\/portal\/sign-in\/code/, "the code is still asked for");
    });

    test("requests are braked per e-mail, known or not, with the same page for both", async () => {
      clock = 5 * HOUR; // a window of its own
      for (const email of ["braked@example.com", "braked-nobody@example.com"]) {
        if (email === "braked@example.com") await addPortalUser(server, server, email, "viewer");
        const client = new PortalClient(server.baseUrl);
        for (let i = 0; i < MAX_FAILURES_PER_ACCOUNT; i++) assert.equal((await askForReset(client, email)).status, 303);
        const braked = await askForReset(client, email);
        assert.equal(braked.status, 429, email);
        assert.match(braked.text, /Too many requests for a new password/);
        assert.ok(Number(braked.headers.get("retry-after")) > 0);
      }
      const sent = await mail.deliver();
      assert.equal(sent.filter((m) => m.to === "braked@example.com").length, MAX_FAILURES_PER_ACCOUNT);
    });
  });
}
