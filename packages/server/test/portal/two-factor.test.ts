// Two-factor sign-in over real HTTP (docs/portal.md#two-factor-sign-in): enrol from the account
// page (QR code and key, confirm with a code, ten recovery codes shown once), then sign-in asks for
// a code after the password; a code is accepted once, a recovery code once; wrong codes are braked
// like passwords; the secret is sealed in the database; turning it off needs a code.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { MAX_FAILURES_PER_ACCOUNT } from "../../src/domain/portal/signin-brake.ts";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { addPortalUser, PortalClient } from "../support/portal.ts";
import { codeFor, enrol } from "../support/two-factor.ts";

for (const backend of testBackends()) {
  describe(`portal two-factor sign-in (${backend.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ backend });
    });
    after(() => server?.close());

    test("enrol: QR code and key, confirm with a code, ten recovery codes shown once; the secret is sealed", async () => {
      const user = await addPortalUser(server, server, "enrol@example.com", "viewer");
      const client = new PortalClient(server.baseUrl);
      await client.signIn(user.email, user.password);
      const start = await client.get("/portal/account/two-factor");
      assert.match(start.text, /authenticator app/);
      await client.post("/portal/account/two-factor/start", {}, start);
      const page = await client.get("/portal/account/two-factor");
      assert.match(page.html, /<div class="qr" role="img" aria-label="QR code for your authenticator app"><svg/);
      const secret = /data-totp-secret[^>]*>([A-Z2-7 ]+)</.exec(page.html)![1]!.replaceAll(" ", "");
      const stored = await server.db.selectFrom("portal_users").selectAll().where("id", "=", user.userId).executeTakeFirstOrThrow();
      assert.ok(stored.totp_secret_sealed);
      assert.ok(!stored.totp_secret_sealed.includes(secret), "the secret is not in the database in clear");
      assert.equal(stored.two_factor_enabled_at, null, "not on before the first code");

      const wrong = await client.post("/portal/account/two-factor/confirm", { code: "000000" }, page);
      assert.equal(wrong.status, 400);
      assert.match(wrong.text, /That code is wrong or was already used/);
      const confirmed = await client.post("/portal/account/two-factor/confirm", { code: codeFor(secret) }, page);
      assert.equal(confirmed.status, 303);
      const shown = await client.get(confirmed.location!);
      const codes = [...shown.html.matchAll(/<li>([a-z0-9]{4}(?:-[a-z0-9]{4}){3})<\/li>/g)].map((m) => m[1]!);
      assert.equal(codes.length, 10);
      assert.equal(new Set(codes).size, 10);
      const again = await client.get(confirmed.location!);
      assert.doesNotMatch(again.html, /data-recovery-codes/, "a reload shows them no more");
      assert.match(again.text, /shown once and are not shown again/);
      const hashes = await server.db.selectFrom("portal_recovery_codes").select("code_hash").where("user_id", "=", user.userId).execute();
      assert.equal(hashes.length, 10);
      for (const code of codes) assert.ok(!hashes.some((h) => h.code_hash.includes(code)), "recovery codes are stored hashed");
      assert.match((await client.get("/portal/account")).text, /On: signing in asks for a code[\s\S]*10 unused recovery codes left/);
    });

    test("sign-in asks for the code after the password; a code works once; a recovery code once", async () => {
      const user = await addPortalUser(server, server, "twostep@example.com", "support");
      const first = new PortalClient(server.baseUrl);
      await first.signIn(user.email, user.password);
      const { secret, codes, used } = await enrol(first);

      const client = new PortalClient(server.baseUrl);
      const password = await client.signIn(user.email, user.password);
      assert.equal(password.status, 303);
      assert.match(password.location!, /^\/portal\/sign-in\/code\?next=/);
      // Between the password and the code, nothing else opens.
      for (const path of ["/portal/overview", "/portal/account", "/portal/payments"]) {
        assert.equal((await client.get(path)).location, "/portal/sign-in/code", path);
      }
      const form = await client.get(password.location!);
      assert.match(form.text, /Enter your code/);
      assert.doesNotMatch(form.html, /href="\/portal\/overview"/, "no menu before the code");

      // The code used to turn it on is spent: the next step's code signs in.
      const spent = await client.post("/portal/sign-in/code", { code: used }, form);
      assert.equal(spent.status, 401, "the enrolment's code is not accepted again");
      const code = codeFor(secret, 1);
      const signed = await client.post("/portal/sign-in/code", { code }, form);
      assert.equal(signed.status, 303, signed.text.slice(0, 200));
      assert.equal(signed.location, "/portal/overview");
      assert.equal((await client.get("/portal/overview")).status, 200);

      // The same code again, in another browser within its window: refused.
      const replay = new PortalClient(server.baseUrl);
      await replay.signIn(user.email, user.password);
      const replayForm = await replay.get("/portal/sign-in/code");
      assert.equal((await replay.post("/portal/sign-in/code", { code }, replayForm)).status, 401);
      // A recovery code, typed loosely, works once.
      const recovery = codes[0]!.toUpperCase().replaceAll("-", " ");
      assert.equal((await replay.post("/portal/sign-in/code", { code: recovery }, replayForm)).status, 303);
      const thirdClient = new PortalClient(server.baseUrl);
      await thirdClient.signIn(user.email, user.password);
      const thirdForm = await thirdClient.get("/portal/sign-in/code");
      assert.equal((await thirdClient.post("/portal/sign-in/code", { code: codes[0]! }, thirdForm)).status, 401, "used up");
      assert.equal((await thirdClient.post("/portal/sign-in/code", { code: codes[1]! }, thirdForm)).status, 303);
      assert.match((await thirdClient.get("/portal/account")).text, /8 unused recovery codes left/);
    });

    test("wrong codes are braked like passwords, and the right one then waits too", async () => {
      const user = await addPortalUser(server, server, "braked-code@example.com", "viewer");
      const first = new PortalClient(server.baseUrl);
      await first.signIn(user.email, user.password);
      const { secret } = await enrol(first);
      const client = new PortalClient(server.baseUrl);
      await client.signIn(user.email, user.password);
      const form = await client.get("/portal/sign-in/code");
      for (let i = 0; i < MAX_FAILURES_PER_ACCOUNT; i++) {
        assert.equal((await client.post("/portal/sign-in/code", { code: String(100000 + i) }, form)).status, 401);
      }
      const held = await client.post("/portal/sign-in/code", { code: codeFor(secret, 1) }, form);
      assert.equal(held.status, 429);
      assert.ok(Number(held.headers.get("retry-after")) > 0);
      assert.match(held.text, /Too many wrong codes/);
    });

    test("turning it off needs a code; then sign-in asks only for the password", async () => {
      const user = await addPortalUser(server, server, "off@example.com", "viewer");
      const client = new PortalClient(server.baseUrl);
      await client.signIn(user.email, user.password);
      const { secret } = await enrol(client);
      const page = await client.get("/portal/account/two-factor");
      assert.match(page.text, /Turn off two-factor sign-in/);
      assert.equal((await client.post("/portal/account/two-factor/disable", { code: "123456" }, page)).status, 400);
      const off = await client.post("/portal/account/two-factor/disable", { code: codeFor(secret, 1) }, page);
      assert.equal(off.status, 303);
      assert.match((await client.get(off.location!)).text, /Two-factor sign-in is off/);
      const again = new PortalClient(server.baseUrl);
      const signed = await again.signIn(user.email, user.password);
      assert.equal(signed.location, "/portal/overview");
      const left = await server.db.selectFrom("portal_recovery_codes").select("code_hash").where("user_id", "=", user.userId).execute();
      assert.equal(left.length, 0);
    });
  });
}
