// The users page over real HTTP (docs/portal.md#users-and-roles): users listed with role and
// two-factor state; a role change and a removal ask first, then answer with a redirect whose page
// repeats nothing on reload; a removed user is signed out at once; the last owner stays, even
// when two owners demote each other at the same moment; another merchant's users are not found.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { testBackends } from "../support/databases.ts";
import { addMerchantFixture, startTestServer, type TestServer } from "../support/harness.ts";
import { addPortalUser, PortalClient, signedIn } from "../support/portal.ts";

for (const backend of testBackends()) {
  describe(`portal users page (${backend.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ backend });
    });
    after(() => server?.close());

    const roleOf = async (userId: string) =>
      (await server.db.selectFrom("portal_users").select("role").where("id", "=", userId).executeTakeFirst())?.role;

    test("a role change asks first, then changes; reloading the result changes nothing more", async () => {
      const owner = await signedIn(server, server, "boss@example.com", "owner");
      const clerk = await addPortalUser(server, server, "clerk@example.com", "viewer");
      const users = await owner.get("/portal/users");
      assert.match(users.text, /clerk@example\.com Viewer/);
      assert.match(users.html, /data-user="clerk@example.com" data-role="viewer"[\s\S]*?Off/);
      const asked = await owner.get(`/portal/users/${clerk.userId}/role?role=support`);
      assert.equal(asked.status, 200);
      assert.match(asked.text, /Make clerk@example\.com Support\?/);
      assert.equal(await roleOf(clerk.userId), "viewer", "asking changes nothing");
      const done = await owner.post(`/portal/users/${clerk.userId}/role`, {}, asked);
      assert.equal(done.status, 303);
      assert.equal(done.location, "/portal/users?done=role-changed");
      assert.equal(await roleOf(clerk.userId), "support");
      const result = await owner.get(done.location!);
      assert.match(result.text, /The role was changed/);
      assert.equal((await owner.get(done.location!)).status, 200, "a reload shows the page again and changes nothing");
      assert.equal(await roleOf(clerk.userId), "support");
      // Icelandic too.
      assert.match((await owner.get("/portal/users?lang=is")).text, /clerk@example\.com Þjónusta/);
      await owner.get("/portal/users?lang=en");
    });

    test("removing a user asks first, ends their sessions at once, and they cannot sign in", async () => {
      const owner = await signedIn(server, server, "boss2@example.com", "owner");
      const leaving = await addPortalUser(server, server, "leaving@example.com", "developer");
      const theirs = new PortalClient(server.baseUrl);
      assert.equal((await theirs.signIn(leaving.email, leaving.password)).status, 303);
      assert.equal((await theirs.get("/portal/overview")).status, 200);
      const asked = await owner.get(`/portal/users/${leaving.userId}/remove`);
      assert.match(asked.text, /Remove leaving@example\.com\?/);
      const done = await owner.post(`/portal/users/${leaving.userId}/remove`, {}, asked);
      assert.equal(done.status, 303);
      assert.match((await owner.get(done.location!)).text, /The user was removed and signed out/);
      assert.equal(await roleOf(leaving.userId), undefined);
      const after = await theirs.get("/portal/overview");
      assert.equal(after.status, 303, "their session ended with them");
      assert.match(after.location!, /^\/portal\/sign-in/);
      assert.equal((await new PortalClient(server.baseUrl).signIn(leaving.email, leaving.password)).status, 401);
      // Removing again: gone.
      assert.equal((await owner.post(`/portal/users/${leaving.userId}/remove`, { csrf: await owner.csrf() })).status, 404);
    });

    test("the last owner can be neither demoted nor removed; two owners demoting each other at once leave one", async () => {
      const merchant = await addMerchantFixture(server.db);
      const { merchantId } = merchant;
      const first = await addPortalUser(server, merchant, "first-owner@example.com", "owner");
      const firstClient = new PortalClient(server.baseUrl);
      await firstClient.signIn(first.email, first.password);
      const csrf = await firstClient.csrf();
      const alone = await firstClient.post(`/portal/users/${first.userId}/role`, { csrf, role: "admin" });
      assert.equal(alone.status, 409);
      assert.match(alone.text, /There must always be at least one owner/);
      assert.equal(await roleOf(first.userId), "owner");
      assert.equal((await firstClient.post(`/portal/users/${first.userId}/remove`, { csrf })).status, 409, "nor removes themselves");

      const second = await addPortalUser(server, merchant, "second-owner@example.com", "owner");
      const secondClient = new PortalClient(server.baseUrl);
      await secondClient.signIn(second.email, second.password);
      const secondCsrf = await secondClient.csrf();
      const statuses = await Promise.all([
        firstClient.post(`/portal/users/${second.userId}/role`, { csrf, role: "viewer" }),
        secondClient.post(`/portal/users/${first.userId}/role`, { csrf: secondCsrf, role: "viewer" }),
      ]);
      const owners = await server.db
        .selectFrom("portal_users")
        .select("id")
        .where("merchant_id", "=", merchantId)
        .where("role", "=", "owner")
        .execute();
      assert.equal(owners.length, 1, `statuses ${statuses.map((s) => s.status).join(" ")}`);
      // The second to run is refused: as the last owner (409), or, when the first had already made
      // them a viewer before their request was read, for their role (403).
      const [won, lost] = statuses.map((s) => s.status).sort();
      assert.equal(won, 303);
      assert.ok(lost === 409 || lost === 403, String(lost));
    });

    test("another merchant's users are not found, and none of them is listed", async () => {
      const other = await addMerchantFixture(server.db);
      const stranger = await addPortalUser(server, other, "stranger@example.com", "viewer");
      const owner = await signedIn(server, server, "boss3@example.com", "owner");
      assert.doesNotMatch((await owner.get("/portal/users")).text, /stranger@example\.com/);
      assert.equal((await owner.get(`/portal/users/${stranger.userId}/role?role=owner`)).status, 404);
      assert.equal((await owner.get(`/portal/users/${stranger.userId}/remove`)).status, 404);
      const csrf = await owner.csrf();
      assert.equal((await owner.post(`/portal/users/${stranger.userId}/role`, { csrf, role: "owner" })).status, 404);
      assert.equal((await owner.post(`/portal/users/${stranger.userId}/remove`, { csrf })).status, 404);
      assert.equal(await roleOf(stranger.userId), "viewer");
      assert.equal((await owner.get("/portal/users/nonsense!/remove")).status, 404);
      assert.equal((await owner.get(`/portal/users/${stranger.userId}/role?role=emperor`)).status, 404);
    });

    test("an owner requires two-factor of everyone: users without it are sent to set it up, and nowhere else", async () => {
      const merchant = await addMerchantFixture(server.db);
      const boss = await addPortalUser(server, merchant, "strict-boss@example.com", "owner");
      const bossClient = new PortalClient(server.baseUrl);
      await bossClient.signIn(boss.email, boss.password);
      const users = await bossClient.get("/portal/users");
      const saved = await bossClient.post("/portal/users/security", { requireTwoFactor: "1" }, users);
      assert.equal(saved.status, 303);
      const staff = await addPortalUser(server, merchant, "strict-staff@example.com", "viewer");
      const staffClient = new PortalClient(server.baseUrl);
      const signedInPage = await staffClient.signIn(staff.email, staff.password);
      assert.equal(signedInPage.status, 303);
      for (const path of ["/portal/overview", "/portal/payments", "/portal/account"]) {
        const page = await staffClient.get(path);
        assert.equal(page.status, 303, path);
        assert.equal(page.location, "/portal/account/two-factor?required=1", path);
      }
      const enrol = await staffClient.get("/portal/account/two-factor?required=1");
      assert.equal(enrol.status, 200);
      assert.match(enrol.text, /Your organisation requires two-factor sign-in/);
      // The owner themselves too, from their next page on.
      assert.equal((await bossClient.get("/portal/overview")).location, "/portal/account/two-factor?required=1");
    });
  });
}
