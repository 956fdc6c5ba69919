// The account page over real HTTP (docs/portal.md#account): changing the password needs the
// current one (braked like sign-in) and ends every other session; the session list shows each session's start, last
// use, address and browser, and ends one or all others — only the user's own.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { MAX_FAILURES_PER_ACCOUNT } from "../../src/domain/portal/signin-brake.ts";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { addPortalUser, PortalClient } from "../support/portal.ts";

for (const backend of testBackends()) {
  describe(`portal account page (${backend.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ backend });
    });
    after(() => server?.close());

    test("changing the password needs the current one and ends the other sessions, not this one", async () => {
      const user = await addPortalUser(server, server, "pw@example.com", "viewer");
      const here = new PortalClient(server.baseUrl, { "user-agent": "Here/1.0" });
      const there = new PortalClient(server.baseUrl, { "user-agent": "There/2.0" });
      await here.signIn(user.email, user.password);
      await there.signIn(user.email, user.password);
      const page = await here.get("/portal/account");
      assert.equal(page.status, 200);
      const wrong = await here.post("/portal/account/password", { current: "not it at all", password: "a brand new password" }, page);
      assert.equal(wrong.status, 400);
      assert.match(wrong.text, /The current password is wrong/);
      const short = await here.post("/portal/account/password", { current: user.password, password: "short" }, page);
      assert.equal(short.status, 400);
      assert.match(short.text, /at least 10 characters/);
      assert.equal((await there.get("/portal/overview")).status, 200, "refused changes end nothing");

      const changed = await here.post("/portal/account/password", { current: user.password, password: "a brand new password" }, page);
      assert.equal(changed.status, 303);
      assert.match((await here.get(changed.location!)).text, /Your password was changed\. Your other sessions were ended\./);
      assert.equal((await there.get("/portal/overview")).status, 303, "the other session ended");
      assert.equal((await new PortalClient(server.baseUrl).signIn(user.email, user.password)).status, 401);
      assert.equal((await new PortalClient(server.baseUrl).signIn(user.email, "a brand new password")).status, 303);
      // Guessing the current password from an open session is braked like sign-in.
      const guesser = await addPortalUser(server, server, "guessed@example.com", "viewer");
      const open = new PortalClient(server.baseUrl);
      await open.signIn(guesser.email, guesser.password);
      const form = await open.get("/portal/account");
      const statuses: number[] = [];
      for (let i = 0; i < MAX_FAILURES_PER_ACCOUNT + 1; i++) {
        statuses.push(
          (await open.post("/portal/account/password", { current: `guess ${i}`, password: "a brand new password" }, form)).status,
        );
      }
      assert.deepEqual(statuses, [...Array(MAX_FAILURES_PER_ACCOUNT).fill(400), 429]);
      const right = await open.post("/portal/account/password", { current: guesser.password, password: "a brand new password" }, form);
      assert.equal(right.status, 429, "the right one waits too");
      const icelandic = await here.get("/portal/account?lang=is");
      assert.match(icelandic.text, /Aðgangurinn þinn/);
      await here.get("/portal/account?lang=en");
    });

    test("the session list shows each session, ends one, then all others; never another user's", async () => {
      const user = await addPortalUser(server, server, "sessions@example.com", "viewer");
      const other = await addPortalUser(server, server, "someone-else@example.com", "viewer");
      const clients = ["Alpha/1", "Beta/2", "Gamma/3"].map((agent) => new PortalClient(server.baseUrl, { "user-agent": agent }));
      for (const client of clients) await client.signIn(user.email, user.password);
      const stranger = new PortalClient(server.baseUrl);
      await stranger.signIn(other.email, other.password);
      const [me, beta, gamma] = clients as [PortalClient, PortalClient, PortalClient];
      const page = await me.get("/portal/account");
      const rows = [...page.html.matchAll(/<tr data-session="([^"]+)">([\s\S]*?)<\/tr>/g)].map((m) => ({ id: m[1]!, html: m[2]! }));
      assert.equal(rows.length, 3);
      assert.match(page.text, /Alpha\/1 This session/);
      assert.match(page.text, /Beta\/2/);
      assert.match(page.text, /127\.0\.0\.1|::1/);
      assert.doesNotMatch(page.text, /someone-else/);
      const betaRow = rows.find((row) => row.html.includes("Beta/2"))!;

      // Another user cannot end it; the user can, and a reload of the result repeats nothing.
      const strangerCsrf = await stranger.csrf();
      assert.equal((await stranger.post(`/portal/account/sessions/${betaRow.id}/end`, { csrf: strangerCsrf })).status, 404);
      assert.equal((await beta.get("/portal/overview")).status, 200);
      // Ending asks first, without JavaScript: a link to a question page that changes nothing.
      assert.match(betaRow.html, new RegExp(`<a class="button secondary" href="/portal/account/sessions/${betaRow.id}/end"`));
      assert.doesNotMatch(page.html, /<form method="post" action="\/portal\/account\/sessions\/[^"]+\/end"/, "no one-click end");
      const question = await me.get(`/portal/account/sessions/${betaRow.id}/end`);
      assert.equal(question.status, 200);
      assert.match(question.html, /data-confirm/);
      assert.match(question.text, /End the session started/);
      assert.equal((await beta.get("/portal/overview")).status, 200, "asking ended nothing");
      assert.equal((await stranger.get(`/portal/account/sessions/${betaRow.id}/end`)).status, 404);
      const ownId = rows.find((row) => row.html.includes("Alpha/1"))!.id;
      assert.equal((await me.get(`/portal/account/sessions/${ownId}/end`)).status, 404, "this session ends by signing out");
      const ended = await me.post(`/portal/account/sessions/${betaRow.id}/end`, {}, question);
      assert.equal(ended.status, 303);
      assert.match((await me.get(ended.location!)).text, /The session was ended/);
      assert.equal((await beta.get("/portal/overview")).status, 303);
      assert.equal((await gamma.get("/portal/overview")).status, 200);

      const fresh = await me.get("/portal/account");
      const others = await me.post("/portal/account/sessions/end-others", {}, fresh);
      assert.equal(others.status, 303);
      assert.match((await me.get(others.location!)).text, /Your other sessions were ended/);
      assert.equal((await gamma.get("/portal/overview")).status, 303);
      assert.equal((await me.get("/portal/overview")).status, 200, "this session stays");
      assert.equal((await stranger.get("/portal/overview")).status, 200, "another user's sessions stay");
      const mine = (await me.get("/portal/account")).html.match(/<tr data-session=/g) ?? [];
      assert.equal(mine.length, 1);
    });
  });
}
