// Invitations over real HTTP and a real SMTP conversation (docs/portal.md#invitations): an owner
// invites from the users page, the mail's link opens a page that sets a password, makes the user
// with the invited role and signs them in, once; the link dies after 72 hours, when revoked, and
// when sent again; an address already a user is a field error; every step is in the audit log.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, beforeEach, describe, test } from "node:test";
import { type AccountMail, linkIn, startAccountMail } from "../support/account-mail.ts";
import { auditRowsOf } from "../support/audit.ts";
import { testBackends } from "../support/databases.ts";
import { addMerchantFixture, startTestServer, type TestServer } from "../support/harness.ts";
import { addPortalUser, PortalClient, signedIn } from "../support/portal.ts";

const HOUR = 3_600_000;

for (const backend of testBackends()) {
  describe(`portal invitations (${backend.name})`, () => {
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

    async function invite(owner: PortalClient, email: string, role = "developer") {
      const page = await owner.get("/portal/users");
      return owner.post("/portal/users/invitations", { email, role }, page);
    }

    test("an invitation is mailed, its link sets a password, signs in with the invited role, and works once", async () => {
      const owner = await signedIn(server, server, "inviter@example.com", "owner");
      const sent = await invite(owner, "new.dev@example.com");
      assert.equal(sent.status, 303);
      assert.equal(sent.location, "/portal/users?done=invited");
      const users = await owner.get(sent.location!);
      assert.match(users.text, /The invitation was sent/);
      assert.match(users.html, /data-invitation="new.dev@example.com"/);
      const [message] = await mail.deliver();
      assert.ok(message, "the invitation arrived");
      assert.equal(message.to, "new.dev@example.com");
      assert.match(message.text, /inviter@example\.com/);
      const link = linkIn(message, "invitations");
      const stored = await server.db.selectFrom("portal_invitations").select("token_hash").execute();
      const token = link.split("/").pop()!;
      assert.ok(
        stored.every((row) => row.token_hash !== token && !row.token_hash.includes(token)),
        "the token is not stored",
      );
      assert.ok(
        stored.some((row) => row.token_hash === createHash("sha256").update(token).digest("hex")),
        "its hash is",
      );

      const invitee = new PortalClient(server.baseUrl);
      const page = await invitee.get(link);
      assert.equal(page.status, 200);
      assert.match(page.text, /inviter@example\.com invited you as Developer/);
      const short = await invitee.post(link, { password: "short" }, page);
      assert.equal(short.status, 400);
      assert.match(short.text, /at least 10 characters/);
      const accepted = await invitee.post(link, { password: "a brand new password" }, short);
      assert.equal(accepted.status, 303);
      assert.equal(accepted.location, "/portal/overview");
      assert.equal((await invitee.get("/portal/overview")).status, 200, "signed in at once");
      const user = await server.db
        .selectFrom("portal_users")
        .select(["id", "role"])
        .where("email", "=", "new.dev@example.com")
        .executeTakeFirstOrThrow();
      assert.equal(user.role, "developer");
      assert.equal((await new PortalClient(server.baseUrl).signIn("new.dev@example.com", "a brand new password")).status, 303);

      const again = new PortalClient(server.baseUrl);
      const reused = await again.get(link);
      assert.equal(reused.status, 410);
      assert.match(reused.text, /already used/);
      const reusedPost = await again.post(link, { password: "another password here" }, await again.get("/portal/sign-in"));
      assert.equal(reusedPost.status, 410, "a second use changes nothing");
      assert.doesNotMatch((await owner.get("/portal/users")).html, /data-invitation="new.dev@example.com"/, "no longer open");

      const actions = (await auditRowsOf(server.db, server.merchantId)).map((row) => `${row.action} ${row.actor_label}`);
      assert.ok(actions.includes("user.invite inviter@example.com"), actions.join());
      assert.ok(actions.includes("user.invite-accept new.dev@example.com"), actions.join());
      assert.equal((await invitee.get("/portal/invitations/not-a-token")).status, 404);
      assert.equal((await invitee.get(`/portal/invitations/${"A".repeat(43)}`)).status, 404, "a wrong token is not found");
    });

    test("an address already a user, or already invited, is a field error; a bad address too; in Icelandic as well", async () => {
      const owner = await signedIn(server, server, "inviter2@example.com", "owner");
      await addPortalUser(server, server, "already@example.com", "viewer");
      const taken = await invite(owner, "Already@Example.com");
      assert.equal(taken.status, 409);
      assert.match(taken.text, /already a user here/);
      assert.match(taken.html, /id="invite-email"[^>]*aria-invalid="true"/);
      const bad = await invite(owner, "not an address");
      assert.equal(bad.status, 400);
      assert.match(bad.text, /Give an e-mail address/);
      assert.equal((await invite(owner, "twice@example.com")).status, 303);
      const twice = await invite(owner, "twice@example.com");
      assert.equal(twice.status, 409);
      assert.match(twice.text, /already has an open invitation/);
      await owner.get("/portal/users?lang=is");
      const icelandic = await invite(owner, "already@example.com");
      assert.match(icelandic.text, /þegar notandi hér/);
      await owner.get("/portal/users?lang=en");
      await mail.deliver();
    });

    test("revoking asks first and kills the link; sending again kills the old link; 72 hours end it", async () => {
      const owner = await signedIn(server, server, "inviter3@example.com", "owner");
      await invite(owner, "revoked@example.com", "viewer");
      await invite(owner, "resent@example.com", "support");
      await invite(owner, "late@example.com", "viewer");
      const messages = await mail.deliver();
      const linkTo = (email: string) => linkIn(messages.find((m) => m.to === email)!, "invitations");
      const idOf = async (email: string) =>
        (await server.db.selectFrom("portal_invitations").select("id").where("email", "=", email).executeTakeFirstOrThrow()).id;

      const revokedId = await idOf("revoked@example.com");
      const asked = await owner.get(`/portal/users/invitations/${revokedId}/revoke`);
      assert.equal(asked.status, 200);
      assert.match(asked.text, /Revoke the invitation to revoked@example\.com\?/);
      assert.equal((await new PortalClient(server.baseUrl).get(linkTo("revoked@example.com"))).status, 200, "asking changes nothing");
      const done = await owner.post(`/portal/users/invitations/${revokedId}/revoke`, {}, asked);
      assert.equal(done.status, 303);
      assert.match((await owner.get(done.location!)).text, /The invitation was revoked/);
      const gone = await new PortalClient(server.baseUrl).get(linkTo("revoked@example.com"));
      assert.equal(gone.status, 410);
      assert.match(gone.text, /was revoked/);
      assert.equal((await owner.post(`/portal/users/invitations/${revokedId}/revoke`, { csrf: await owner.csrf() })).status, 404);

      const resentId = await idOf("resent@example.com");
      const users = await owner.get("/portal/users");
      const resent = await owner.post(`/portal/users/invitations/${resentId}/resend`, {}, users);
      assert.equal(resent.status, 303);
      const [second] = await mail.deliver();
      assert.equal(second?.to, "resent@example.com");
      assert.equal((await new PortalClient(server.baseUrl).get(linkTo("resent@example.com"))).status, 404, "the first link died");
      assert.equal((await new PortalClient(server.baseUrl).get(linkIn(second!, "invitations"))).status, 200);

      clock = 72 * HOUR + 60_000;
      const late = new PortalClient(server.baseUrl);
      const expired = await late.get(linkTo("late@example.com"));
      assert.equal(expired.status, 410);
      assert.match(expired.text, /has expired/);
      assert.match((await late.get(`${linkTo("late@example.com")}?lang=is`)).text, /útrunnið/);
      const actions = (await auditRowsOf(server.db, server.merchantId)).map((row) => row.action);
      assert.ok(actions.includes("user.invite-revoke") && actions.includes("user.invite-resend"), actions.join());
    });

    test("admins invite but not owners; viewers cannot invite; another merchant's invitation is not found", async () => {
      const admin = await signedIn(server, server, "admin-inviter@example.com", "admin");
      const asOwner = await invite(admin, "would-be-owner@example.com", "owner");
      assert.equal(asOwner.status, 403);
      const viewer = await signedIn(server, server, "viewer-inviter@example.com", "viewer");
      assert.equal(
        (await viewer.post("/portal/users/invitations", { csrf: await viewer.csrf(), email: "x@example.com", role: "viewer" })).status,
        403,
      );
      const other = await addMerchantFixture(server.db);
      const stranger = await signedIn(server, other, "other-owner@example.com", "owner");
      await invite(stranger, "theirs@example.com");
      const theirs = await server.db
        .selectFrom("portal_invitations")
        .select("id")
        .where("email", "=", "theirs@example.com")
        .executeTakeFirstOrThrow();
      assert.equal((await admin.get(`/portal/users/invitations/${theirs.id}/revoke`)).status, 404);
      assert.equal((await admin.post(`/portal/users/invitations/${theirs.id}/resend`, { csrf: await admin.csrf() })).status, 404);
      assert.doesNotMatch((await admin.get("/portal/users")).text, /theirs@example\.com/);
      await mail.deliver();
    });
  });
}
