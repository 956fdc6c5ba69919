// Portal sign-in over real HTTP on a real database: the session lives in the database (another app
// on the same database knows it), the cookie's flags, sign-out kills the session on the server,
// idle expiry, the CSRF token on every form (sign-in included), and the brake on wrong passwords.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { buildApp } from "../../src/app.ts";
import { MAX_FAILURES_PER_ACCOUNT, MAX_FAILURES_PER_ADDRESS } from "../../src/domain/portal/signin-brake.ts";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { testKeyring } from "../support/keyring.ts";
import { addPortalUser, PORTAL_PASSWORD, PortalClient } from "../support/portal.ts";

/** A Set-Cookie header's attributes, sorted: the order a library writes them in does not matter. */
function attributesOf(setCookie: string | undefined): string[] {
  return (setCookie ?? "")
    .split(";")
    .slice(1)
    .map((attribute) => attribute.trim())
    .sort();
}

for (const backend of testBackends()) {
  describe(`portal sessions (${backend.name})`, () => {
    let server: TestServer;
    let clock = 0;
    before(async () => {
      server = await startTestServer({ backend, now: () => new Date(Date.now() + clock) });
      await addPortalUser(server, server, "owner@example.com");
    });
    after(() => server?.close());

    test("sign-in starts a session in a HttpOnly, SameSite=Lax cookie scoped to /portal; the overview shows the merchant", async () => {
      const client = new PortalClient(server.baseUrl);
      const form = await client.get("/portal/sign-in");
      assert.equal(form.status, 200);
      assert.match(form.html, /name="csrf" value="[A-Za-z0-9_-]{43}"/);
      const signedIn = await client.post("/portal/sign-in", { email: "Owner@Example.com ", password: PORTAL_PASSWORD }, form);
      assert.equal(signedIn.status, 303, signedIn.text);
      assert.equal(signedIn.location, "/portal/overview");
      const cookie = signedIn.headers.getSetCookie().find((c) => c.startsWith("paylink_session="));
      assert.match(cookie ?? "", /^paylink_session=[A-Za-z0-9_-]{43};/);
      assert.deepEqual(attributesOf(cookie), ["HttpOnly", "Path=/portal", "SameSite=Lax"], "a browser-session cookie, not Secure on http");
      const overview = await client.get("/portal/overview");
      assert.equal(overview.status, 200);
      assert.match(overview.text, /Test merchant/);
      assert.match(overview.text, /owner@example\.com/);
      // The database holds the cookie's hash, never the value itself.
      const rows = await server.db.selectFrom("portal_sessions").select("id_hash").execute();
      assert.ok(rows.length > 0 && rows.every((row) => row.id_hash !== client.cookies.get("paylink_session")));
    });

    test("the session is in the database: another app on the same database knows it", async () => {
      const client = new PortalClient(server.baseUrl);
      await client.signIn("owner@example.com", PORTAL_PASSWORD);
      const other = await buildApp({ db: server.db, publicBaseUrl: server.baseUrl, keyring: testKeyring() });
      try {
        const response = await other.inject({ url: "/portal/overview", headers: { cookie: client.cookieHeader() } });
        assert.equal(response.statusCode, 200);
        assert.match(response.body, /owner@example\.com/);
      } finally {
        await other.close();
      }
    });

    test("without a session every page leads to the sign-in page, remembering where it was going", async () => {
      const page = await new PortalClient(server.baseUrl).get("/portal/links?status=Active");
      assert.equal(page.status, 303);
      assert.equal(page.location, `/portal/sign-in?notice=ended&next=${encodeURIComponent("/portal/links?status=Active")}`);
    });

    test("a wrong password or an unknown e-mail is 401 with one message that tells neither apart", async () => {
      const wrongPassword = await new PortalClient(server.baseUrl).signIn("owner@example.com", "not the password");
      const unknownUser = await new PortalClient(server.baseUrl).signIn("nobody@example.com", PORTAL_PASSWORD);
      for (const page of [wrongPassword, unknownUser]) {
        assert.equal(page.status, 401);
        assert.match(page.text, /The e-mail or the password is wrong\./);
        assert.equal(page.headers.getSetCookie().filter((c) => c.startsWith("paylink_session=")).length, 0);
      }
    });

    test("a sign-in form without its token (or from another browser) is refused: 403 and no session", async () => {
      const noToken = new PortalClient(server.baseUrl);
      await noToken.get("/portal/sign-in");
      const refused = await noToken.post("/portal/sign-in", { email: "owner@example.com", password: PORTAL_PASSWORD });
      assert.equal(refused.status, 403);
      assert.equal(noToken.cookies.has("paylink_session"), false);
      // A token read in one browser does not work with another browser's cookie.
      const attacker = new PortalClient(server.baseUrl);
      const attackerForm = await attacker.get("/portal/sign-in");
      const victim = new PortalClient(server.baseUrl);
      await victim.get("/portal/sign-in");
      const forged = await victim.post("/portal/sign-in", { email: "owner@example.com", password: PORTAL_PASSWORD }, attackerForm);
      assert.equal(forged.status, 403);
      assert.equal(victim.cookies.has("paylink_session"), false);
    });

    test("sign-out needs the CSRF token, then kills the session on the server: the old cookie no longer works", async () => {
      const client = new PortalClient(server.baseUrl);
      await client.signIn("owner@example.com", PORTAL_PASSWORD);
      const stolen = client.cookieHeader();
      const refused = await client.post("/portal/sign-out", {});
      assert.equal(refused.status, 403);
      assert.equal((await client.get("/portal/overview")).status, 200, "a refused sign-out leaves the session alone");
      const out = await client.post("/portal/sign-out", { csrf: await client.csrf() });
      assert.equal(out.status, 303);
      assert.equal(out.location, "/portal/sign-in?notice=signed-out");
      const cleared = out.headers.getSetCookie().find((c) => c.startsWith("paylink_session="));
      assert.deepEqual(
        attributesOf(cleared).filter((attribute) => !attribute.startsWith("Expires=")),
        ["HttpOnly", "Max-Age=0", "Path=/portal", "SameSite=Lax"],
        "the browser drops the cookie: same path, no lifetime left",
      );
      const replayed = await fetch(`${server.baseUrl}/portal/overview`, { headers: { cookie: stolen }, redirect: "manual" });
      assert.equal(replayed.status, 303);
      assert.match(replayed.headers.get("location") ?? "", /^\/portal\/sign-in/);
    });

    test("a chosen language is remembered for a year in a cookie scoped like the others", async () => {
      const client = new PortalClient(server.baseUrl, { "accept-language": "en" });
      const chosen = await client.get("/portal/sign-in?lang=is");
      const cookie = chosen.headers.getSetCookie().find((c) => c.startsWith("paylink_lang="));
      assert.match(cookie ?? "", /^paylink_lang=is;/);
      assert.deepEqual(attributesOf(cookie), ["HttpOnly", "Max-Age=31536000", "Path=/portal", "SameSite=Lax"]);
      const next = await client.get("/portal/sign-in");
      assert.match(next.html, /<html lang="is"/);
    });

    test("a session unused for longer than the idle limit is over", async () => {
      const client = new PortalClient(server.baseUrl);
      await client.signIn("owner@example.com", PORTAL_PASSWORD);
      assert.equal((await client.get("/portal/overview")).status, 200);
      clock = 31 * 60 * 1000;
      try {
        const page = await client.get("/portal/overview");
        assert.equal(page.status, 303);
      } finally {
        clock = 0;
      }
    });

    test("the brake: after the account's limit of wrong passwords even the right one waits, and the page says how long", async () => {
      await addPortalUser(server, server, "braked@example.com");
      for (let attempt = 0; attempt < MAX_FAILURES_PER_ACCOUNT; attempt++) {
        assert.equal((await new PortalClient(server.baseUrl).signIn("braked@example.com", `wrong ${attempt}`)).status, 401);
      }
      const held = await new PortalClient(server.baseUrl).signIn("BRAKED@example.com", PORTAL_PASSWORD);
      assert.equal(held.status, 429);
      const retryAfter = Number(held.headers.get("retry-after"));
      assert.ok(retryAfter > 14 * 60 && retryAfter <= 15 * 60, `Retry-After ${retryAfter}`);
      assert.match(held.text, /Too many failed sign-ins\. For your safety, try again in 15 minutes\./);
      // Other accounts are not held back by one account's brake.
      assert.equal((await new PortalClient(server.baseUrl).signIn("owner@example.com", PORTAL_PASSWORD)).status, 303);
      // When the window has passed, the right password works again.
      clock = 16 * 60 * 1000;
      try {
        assert.equal((await new PortalClient(server.baseUrl).signIn("braked@example.com", PORTAL_PASSWORD)).status, 303);
      } finally {
        clock = 0;
      }
    });

    test("the session cookie is Secure when the public base URL is https", async () => {
      const app = await buildApp({ db: server.db, publicBaseUrl: "https://pay.example.com", keyring: testKeyring() });
      try {
        const form = await app.inject({ url: "/portal/sign-in" });
        const nonceCookie = String(form.headers["set-cookie"]);
        assert.match(nonceCookie, /; Secure/);
        const csrf = /name="csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? "";
        const signedIn = await app.inject({
          method: "POST",
          url: "/portal/sign-in",
          headers: { "content-type": "application/x-www-form-urlencoded", cookie: nonceCookie.split(";")[0]! },
          payload: new URLSearchParams({ csrf, email: "owner@example.com", password: PORTAL_PASSWORD }).toString(),
        });
        assert.equal(signedIn.statusCode, 303);
        const session = [signedIn.headers["set-cookie"]].flat().find((c) => String(c).startsWith("paylink_session="));
        assert.deepEqual(attributesOf(String(session)), ["HttpOnly", "Path=/portal", "SameSite=Lax", "Secure"]);
      } finally {
        await app.close();
      }
    });

    test("the brake per address: many accounts tried from one address are held back too", async () => {
      clock = 60 * 60 * 1000; // a fresh window, clear of the other tests' failures
      try {
        for (let attempt = 0; attempt < MAX_FAILURES_PER_ADDRESS; attempt++) {
          const page = await new PortalClient(server.baseUrl).signIn(`guess${attempt}@example.com`, "guess");
          assert.equal(page.status, 401);
        }
        const held = await new PortalClient(server.baseUrl).signIn("owner@example.com", PORTAL_PASSWORD);
        assert.equal(held.status, 429);
        assert.ok(Number(held.headers.get("retry-after")) > 0);
      } finally {
        clock = 0;
      }
    });
  });
}
