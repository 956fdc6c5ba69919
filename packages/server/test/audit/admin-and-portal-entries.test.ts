// The admin API's and the portal's changes each leave exactly one audit entry, on both databases
// over real HTTP (docs/portal.md#audit-log): the operator ("admin API") or the signed-in person,
// what, which object and from which address; sign-ins and failed sign-ins of an account too,
// without the password typed; and never a secret in the details.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { sellLink } from "../support/after-sale.ts";
import { auditRowsOf, type StoredAuditRow } from "../support/audit.ts";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { addPortalUser, PortalClient } from "../support/portal.ts";
import { enrol } from "../support/two-factor.ts";

for (const backend of testBackends()) {
  describe(`audit entries of the operator's and the portal's changes (${backend.name})`, () => {
    let server: TestServer;

    before(async () => {
      server = await startTestServer({ backend });
    });
    after(() => server.close());

    async function entriesOf(action: () => Promise<unknown>): Promise<StoredAuditRow[]> {
      const before = (await auditRowsOf(server.db, server.merchantId)).length;
      await action();
      return (await auditRowsOf(server.db, server.merchantId)).slice(before);
    }

    const only = (entries: StoredAuditRow[]) => {
      assert.equal(entries.length, 1, JSON.stringify(entries.map((e) => e.action)));
      return entries[0]!;
    };

    async function admin(method: string, path: string, body?: unknown) {
      const response = await fetch(`${server.baseUrl}/admin/v1/merchants/${server.merchantId}${path}`, {
        method,
        headers: { authorization: `Bearer ${server.adminToken}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = (await response.json()) as any;
      assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
      return json;
    }

    const byOperator = (entry: StoredAuditRow, action: string, objectType: string, objectId: string) => {
      assert.deepEqual(
        [entry.actor_kind, entry.actor_id, entry.actor_label, entry.address, entry.action, entry.object_type, entry.object_id],
        ["operator", null, "admin API", "127.0.0.1", action, objectType, objectId],
      );
    };

    test("the admin API: keys, webhook endpoints, themes and users", async () => {
      let key: any;
      byOperator(
        only(await entriesOf(async () => (key = await admin("POST", "/apikeys", { name: "ERP" })))),
        "api-key.create",
        "api-key",
        key.keyId,
      );
      byOperator(only(await entriesOf(() => admin("POST", `/apikeys/${key.keyId}/revoke`))), "api-key.revoke", "api-key", key.keyId);

      let hook: any;
      const created = only(
        await entriesOf(
          async () => (hook = await admin("POST", "/webhooks", { url: "https://hooks.example.com/a?token=receiver-secret" })),
        ),
      );
      byOperator(created, "webhook.create", "webhook-endpoint", hook.webhookId);
      assert.deepEqual(created.details, { host: "hooks.example.com" }, "the host only: a URL's query may hold a secret");
      const updated = only(await entriesOf(() => admin("POST", `/webhooks/${hook.webhookId}`, { apiKey: "Bearer s3cret-value" })));
      byOperator(updated, "webhook.update", "webhook-endpoint", hook.webhookId);
      assert.deepEqual(updated.details, { fields: ["apiKey"] }, "the field's name, never its value");
      byOperator(
        only(await entriesOf(() => admin("POST", `/webhooks/${hook.webhookId}/disable`))),
        "webhook.disable",
        "webhook-endpoint",
        hook.webhookId,
      );
      byOperator(
        only(await entriesOf(() => admin("POST", `/webhooks/${hook.webhookId}/enable`))),
        "webhook.enable",
        "webhook-endpoint",
        hook.webhookId,
      );
      byOperator(
        only(await entriesOf(() => admin("POST", `/webhooks/${hook.webhookId}/rotate`))),
        "webhook.secret-rotate",
        "webhook-endpoint",
        hook.webhookId,
      );

      let theme: any;
      byOperator(
        only(await entriesOf(async () => (theme = await admin("POST", "/themes", { name: "Jól" })))),
        "theme.create",
        "theme",
        theme.themeKey,
      );
      const themeChanged = only(await entriesOf(() => admin("POST", `/themes/${theme.themeKey}`, { primaryColor: "#aa0000" })));
      byOperator(themeChanged, "theme.update", "theme", theme.themeKey);
      assert.deepEqual(themeChanged.details, { fields: ["primaryColor"] });

      let user: any;
      const userCreated = only(
        await entriesOf(
          async () => (user = await admin("POST", "/users", { email: "new.person@example.com", password: "a long password 123" })),
        ),
      );
      byOperator(userCreated, "user.create", "user", user.userId);
      assert.deepEqual(userCreated.details, { email: "new.person@example.com", role: "owner" });

      const { rows } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM audit_log WHERE details::text LIKE ${"%s3cret%"} OR details::text LIKE ${"%receiver-secret%"} OR details::text LIKE ${"%a long password%"}`.execute(
        server.db,
      );
      assert.equal(rows[0]!.n, 0, "no secret or password in any entry");
    });

    test("sign-in, a failed sign-in (without the password typed), and an unknown e-mail", async () => {
      const user = await addPortalUser(server, server, "anna@example.com");
      const client = new PortalClient(server.baseUrl);
      const failed = only(await entriesOf(async () => assert.equal((await client.signIn(user.email, "wrong-password-typed")).status, 401)));
      assert.deepEqual(
        [failed.actor_kind, failed.actor_label, failed.action, failed.object_type, failed.address],
        ["user", "anna@example.com", "sign-in.failed", "user", "127.0.0.1"],
      );
      const { rows } = await sql<{
        n: number;
      }>`SELECT count(*)::int AS n FROM audit_log WHERE audit_log::text LIKE ${"%wrong-password-typed%"}`.execute(server.db);
      assert.equal(rows[0]!.n, 0, "the password typed is nowhere in the log");
      assert.deepEqual(
        await entriesOf(() => client.signIn("nobody@example.com", "whatever-it-is")),
        [],
        "no merchant's log gets an unknown e-mail",
      );
      const signedIn = only(await entriesOf(async () => assert.equal((await client.signIn(user.email, user.password)).status, 303)));
      assert.deepEqual([signedIn.action, signedIn.actor_id, signedIn.object_id], ["sign-in", failed.actor_id, failed.actor_id]);
    });

    test("the portal: keys, webhook endpoints, themes, links and a refund, each by the signed-in person", async () => {
      await addPortalUser(server, server, "bjorn@example.com");
      const client = new PortalClient(server.baseUrl, { "x-forwarded-for": "203.0.113.9" });
      assert.equal((await client.signIn("bjorn@example.com", "correct horse battery staple")).status, 303);
      const csrf = await client.csrf();
      const post = async (path: string, fields: Record<string, string> = {}) => {
        const page = await client.post(path, { csrf, ...fields });
        assert.equal(page.status, 303, `${path}: ${page.status} ${page.text.slice(0, 300)}`);
        return page.location ?? "";
      };
      const byPerson = (entry: StoredAuditRow, action: string, objectId?: string) => {
        assert.deepEqual(
          [entry.actor_kind, entry.actor_label, entry.address, entry.action],
          ["user", "bjorn@example.com", "127.0.0.1", action],
        );
        if (objectId !== undefined) assert.equal(entry.object_id, objectId);
      };

      const keyCreated = only(await entriesOf(() => post("/portal/developers/api-keys", { name: "Shop" })));
      byPerson(keyCreated, "api-key.create");
      byPerson(
        only(await entriesOf(() => post(`/portal/developers/api-keys/${keyCreated.object_id}/revoke`))),
        "api-key.revoke",
        keyCreated.object_id,
      );

      let location = "";
      const hookCreated = only(
        await entriesOf(async () => (location = await post("/portal/developers/webhooks", { url: "https://hooks.example.com/b" }))),
      );
      const webhookId = /webhooks\/([^?]+)/.exec(location)![1]!;
      byPerson(hookCreated, "webhook.create", webhookId);
      const path = `/portal/developers/webhooks/${webhookId}`;
      byPerson(only(await entriesOf(() => post(path, { url: "https://hooks.example.com/c", apiKey: "" }))), "webhook.update", webhookId);
      for (const action of ["disable", "enable", "reveal", "rotate"] as const) {
        const expected = {
          disable: "webhook.disable",
          enable: "webhook.enable",
          reveal: "webhook.secret-reveal",
          rotate: "webhook.secret-rotate",
        }[action];
        byPerson(only(await entriesOf(() => post(`${path}/${action}`))), expected, webhookId);
      }
      byPerson(only(await entriesOf(() => post(`${path}/delete`))), "webhook.delete", webhookId);

      const themeCreated = only(
        await entriesOf(async () => (location = await post("/portal/themes", { name: "Vor", primaryColor: "#336699" }))),
      );
      const themeKey = /themes\/([^?]+)/.exec(location)![1]!;
      byPerson(themeCreated, "theme.create", themeKey);
      byPerson(
        only(await entriesOf(() => post(`/portal/themes/${themeKey}`, { name: "Vor og sumar", primaryColor: "#336699" }))),
        "theme.update",
        themeKey,
      );

      const { linkReference, payfacReference } = await sellLink(server, 20000);
      byPerson(only(await entriesOf(() => post(`/portal/links/${linkReference}/disable`))), "link.disable", linkReference);
      byPerson(only(await entriesOf(() => post(`/portal/links/${linkReference}/enable`))), "link.update", linkReference);
      const checkoutReference = (await server.api("GET", `/api/v1/payments/${payfacReference}`)).body.payment.checkoutReference as string;
      const refunded = only(
        await entriesOf(() =>
          post(`/portal/payments/${checkoutReference}/refund`, { amount: "50", refundReason: "RETURN", attempt: randomUUID() }),
        ),
      );
      byPerson(refunded, "payment.refund", payfacReference);
      assert.equal(refunded.details.amount, 5000);
    });

    test("the portal: roles, removal, security settings, password, two-factor and sessions", async () => {
      const owner = await addPortalUser(server, server, "olof@example.com");
      const viewer = await addPortalUser(server, server, "vala@example.com", "viewer");
      const client = new PortalClient(server.baseUrl);
      assert.equal((await client.signIn(owner.email, owner.password)).status, 303);
      // A second session of the owner's, for "end the others".
      assert.equal((await new PortalClient(server.baseUrl).signIn(owner.email, owner.password)).status, 303);
      const post = async (path: string, fields: Record<string, string> = {}) => {
        const page = await client.post(path, { csrf: await client.csrf(), ...fields });
        assert.equal(page.status, 303, `${path}: ${page.status} ${page.text.slice(0, 300)}`);
      };
      const byOwner = (entry: StoredAuditRow, action: string, objectType: string, objectId: string) =>
        assert.deepEqual(
          [entry.actor_label, entry.action, entry.object_type, entry.object_id],
          [owner.email, action, objectType, objectId],
        );

      const role = only(await entriesOf(() => post(`/portal/users/${viewer.userId}/role`, { role: "support" })));
      byOwner(role, "user.role-change", "user", viewer.userId);
      assert.deepEqual([role.details.from, role.details.to], ["viewer", "support"]);
      const limit = only(await entriesOf(() => post("/portal/users/refund-limit", { currency: "ISK", amount: "10000" })));
      byOwner(limit, "merchant.refund-limit", "merchant", server.merchantId);
      assert.deepEqual([limit.details.currency, limit.details.amount], ["ISK", 1_000_000], "minor units");
      byOwner(only(await entriesOf(() => post("/portal/users/security", {}))), "merchant.two-factor-rule", "merchant", server.merchantId);
      byOwner(only(await entriesOf(() => post(`/portal/users/${viewer.userId}/remove`))), "user.remove", "user", viewer.userId);

      let enrolled: { codes: string[] } = { codes: [] };
      byOwner(only(await entriesOf(async () => (enrolled = await enrol(client)))), "user.two-factor-enable", "user", owner.userId);
      byOwner(
        only(await entriesOf(() => post("/portal/account/two-factor/disable", { code: enrolled.codes[0]! }))),
        "user.two-factor-disable",
        "user",
        owner.userId,
      );
      byOwner(only(await entriesOf(() => post("/portal/account/sessions/end-others"))), "user.sessions-end", "user", owner.userId);
      const password = only(
        await entriesOf(() => post("/portal/account/password", { current: owner.password, password: "a new and longer password" })),
      );
      byOwner(password, "user.password-change", "user", owner.userId);
      assert.doesNotMatch(JSON.stringify(password.details), /password/i, "no password in the details");
    });
  });
}
