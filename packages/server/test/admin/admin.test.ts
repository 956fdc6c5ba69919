// /admin/v1 (docs/admin-api.md): the operator's provisioning API, bearer-token protected. A merchant made
// here must be usable at once through /api/v1 with the key made here.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { buildApp } from "../../src/app.ts";
import { testBackends } from "../support/databases.ts";
import { assertError, assertOk, getLink, payByLink, rawRequest } from "../support/fixtures.ts";
import { type ApiResponse, startTestServer, type TestServer } from "../support/harness.ts";
import { testKeyring } from "../support/keyring.ts";

const ONE_PIXEL_PNG =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

for (const backend of testBackends()) {
  describe(`admin API (${backend.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ backend });
    });
    after(() => server?.close());

    /** Calls the admin API with the operator's token (or the given Authorization header). */
    const admin = (
      method: string,
      path: string,
      body?: unknown,
      authorization: string | null = `Bearer ${server.adminToken}`,
    ): Promise<ApiResponse> =>
      rawRequest({ baseUrl: server.baseUrl }, method, `/admin/v1${path}`, {
        body: body === undefined ? undefined : JSON.stringify(body),
        contentType: body === undefined ? null : "application/json",
        headers: authorization === null ? {} : { authorization },
      });
    const ok = (response: ApiResponse) => {
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body;
    };

    describe("authentication", () => {
      const attempts: Array<[string, string | null]> = [
        ["no Authorization header", null],
        ["a wrong token", "Bearer wrong-token"],
        ["the token with one character more", "Bearer TOKENx"],
        ["the token without the Bearer scheme", "TOKEN"],
        ["the Basic scheme", "Basic dGVzdDp0ZXN0"],
        ["an empty bearer", "Bearer "],
      ];
      for (const [label, authorization] of attempts) {
        it(`answers 401 3001 with ${label}`, async () => {
          const header = authorization?.replace("TOKEN", server.adminToken) ?? null;
          assertError(await admin("POST", "/merchants", { name: "Nope" }, header), 401, "3001");
        });
      }
      it("refuses every admin route without the token, before looking at the body", async () => {
        for (const path of [
          `/merchants/${server.merchantId}/terminals`,
          `/merchants/${server.merchantId}/apikeys`,
          `/merchants/${server.merchantId}/users`,
          `/merchants/${server.merchantId}/themes`,
        ]) {
          assertError(await admin("POST", path, { bogus: true }, "Bearer wrong"), 401, "3001");
        }
      });
      it("does not accept a merchant API key as the admin token", async () => {
        assertError(await admin("POST", "/merchants", { name: "Nope" }, `Bearer ${server.apiKey}`), 401, "3001");
        const response = await rawRequest(server, "POST", "/admin/v1/merchants", {
          body: JSON.stringify({ name: "Nope" }),
          contentType: "application/json",
        });
        assertError(response, 401, "3001");
      });
      it("created no merchant on refused calls", async () => {
        const { rows } = await sql<{ count: string | number }>`SELECT count(*) AS count FROM merchants WHERE name = 'Nope'`.execute(
          server.db,
        );
        assert.equal(Number(rows[0]!.count), 0);
      });
    });

    describe("provisioning a merchant end to end", () => {
      let merchantId: string;
      let terminalIdentifier: string;
      let euroTerminal: string;
      let apiKey: string;
      let themeKey: string;

      it("creates a merchant", async () => {
        const body = ok(await admin("POST", "/merchants", { name: "  Prjónastofan ehf.  " }));
        assert.match(body.merchantId, /^\S{8,}$/);
        assert.equal(body.name, "Prjónastofan ehf.");
        merchantId = body.merchantId;
      });

      it("creates terminals: any currency, or a list", async () => {
        const any = ok(await admin("POST", `/merchants/${merchantId}/terminals`, { name: "Web shop" }));
        assert.match(any.terminalIdentifier, /^[0-9a-f]{12}$/);
        terminalIdentifier = any.terminalIdentifier;
        const euro = ok(await admin("POST", `/merchants/${merchantId}/terminals`, { currencies: ["eur", "EUR"] }));
        assert.deepEqual(euro.currencies, ["EUR"]);
        euroTerminal = euro.terminalIdentifier;
        assert.notEqual(euroTerminal, terminalIdentifier);
        const bare = ok(await admin("POST", `/merchants/${merchantId}/terminals`));
        assert.match(bare.terminalIdentifier, /^[0-9a-f]{12}$/);
      });

      it("creates an API key, shown once and stored only as a hash", async () => {
        const body = ok(await admin("POST", `/merchants/${merchantId}/apikeys`, { name: "Production" }));
        assert.match(body.apiKey, /^plk_[0-9A-Za-z]{32}$/);
        assert.match(body.keyId, /^\S+$/);
        apiKey = body.apiKey;
        const { rows } = await sql<Record<string, unknown>>`SELECT * FROM api_keys WHERE id = ${body.keyId}`.execute(server.db);
        assert.equal(rows.length, 1);
        for (const value of Object.values(rows[0]!)) assert.notEqual(value, apiKey, "the key itself is not stored");
        const again = ok(await admin("POST", `/merchants/${merchantId}/apikeys`));
        assert.notEqual(again.apiKey, apiKey);
      });

      it("revokes an API key: requests with it get 401 at once; revoking again, or another merchant's key, is 404", async () => {
        const created = ok(await admin("POST", `/merchants/${merchantId}/apikeys`, { name: "Leaked" }));
        const list = (key: string) => server.api("GET", "/api/v1/paymentlinks?pageSize=1", undefined, { "x-api-key": key });
        assert.equal((await list(created.apiKey)).status, 200);
        assertError(await admin("POST", `/merchants/${server.merchantId}/apikeys/${created.keyId}/revoke`), 404, "2014");
        assert.deepEqual(ok(await admin("POST", `/merchants/${merchantId}/apikeys/${created.keyId}/revoke`)), {
          keyId: created.keyId,
          revoked: true,
        });
        assertError(await list(created.apiKey), 401, "3001");
        assertError(await admin("POST", `/merchants/${merchantId}/apikeys/${created.keyId}/revoke`), 404, "2014");
        assert.equal((await list(apiKey)).status, 200, "the merchant's other key still works");
      });

      it("creates a portal user", async () => {
        const body = ok(
          await admin("POST", `/merchants/${merchantId}/users`, { email: "owner@prjon.is", password: "correct horse battery" }),
        );
        assert.match(body.userId, /^\S+$/);
        const { rows } = await sql<{ password_hash: string }>`SELECT password_hash FROM portal_users WHERE id = ${body.userId}`.execute(
          server.db,
        );
        assert.ok(!rows[0]!.password_hash.includes("correct horse"), "the password is hashed");
        assert.equal(body.role, "owner", "without a role the user is an owner");
        const support = ok(
          await admin("POST", `/merchants/${merchantId}/users`, {
            email: "help@prjon.is",
            password: "correct horse battery",
            role: "support",
          }),
        );
        assert.equal(support.role, "support");
        const listed = ok(await admin("GET", `/merchants/${merchantId}/users`));
        assert.deepEqual(
          listed.data.map((u: { email: string; role: string }) => [u.email, u.role]),
          [
            ["owner@prjon.is", "owner"],
            ["help@prjon.is", "support"],
          ],
        );
      });

      it("creates a theme", async () => {
        const body = ok(
          await admin("POST", `/merchants/${merchantId}/themes`, { name: "Prjón", primaryColor: "#aa3300", logoUrl: ONE_PIXEL_PNG }),
        );
        assert.match(body.themeKey, /^\S+$/);
        assert.equal(body.hasLogo, true);
        assert.equal(body.logoUrl, null, "an uploaded logo has no source URL");
        themeKey = body.themeKey;
      });

      it("the new key creates, reads and lists a link on the new terminal with the new theme", async () => {
        const headers = { "x-api-key": apiKey };
        const created = await server.api("POST", "/api/v1/paymentlinks/create", payByLink({ terminalIdentifier }, { themeKey }), headers);
        assertOk(created);
        const link = await getLink(server, created.body.paymentLinkReference, headers);
        assert.equal(link.terminalIdentifier, terminalIdentifier);
        assert.equal(link.themeKey, themeKey);
        const list = await server.api("GET", "/api/v1/paymentlinks", undefined, headers);
        assert.deepEqual(
          list.body.data.map((e: any) => e.paymentLinkReference),
          [created.body.paymentLinkReference],
        );
        // and it is invisible to the fixture merchant
        assertError(await server.api("GET", `/api/v1/paymentlinks/${created.body.paymentLinkReference}`), 404, "2014");
      });

      it("the currency list of a terminal is enforced (2011)", async () => {
        const headers = { "x-api-key": apiKey };
        assertError(
          await server.api("POST", "/api/v1/paymentlinks/create", payByLink({ terminalIdentifier: euroTerminal }), headers),
          400,
          "2011",
        );
        assertOk(
          await server.api(
            "POST",
            "/api/v1/paymentlinks/create",
            { type: "PayByLink", terminalIdentifier: euroTerminal, amount: 995, currency: "EUR", items: [] },
            headers,
          ),
        );
      });

      it("the fixture merchant cannot use the new merchant's terminal or theme", async () => {
        assertError(await server.api("POST", "/api/v1/paymentlinks/create", payByLink({ terminalIdentifier })), 400, "2016");
        assertError(await server.api("POST", "/api/v1/paymentlinks/create", payByLink(server, { themeKey })), 400, "2010");
      });
    });

    describe("errors", () => {
      for (const resource of ["terminals", "apikeys", "users", "themes"]) {
        it(`answers 404 2014 for ${resource} of an unknown merchant`, async () => {
          const body = {
            terminals: {},
            apikeys: {},
            users: { email: "x@example.com", password: "long enough password" },
            themes: { name: "T" },
          }[resource];
          assertError(await admin("POST", `/merchants/mer_doesnotexist/${resource}`, body), 404, "2014", "mer_doesnotexist");
        });
      }
      it("validates bodies with the catalogue codes", async () => {
        const id = server.merchantId;
        assertError(await admin("POST", "/merchants", {}), 400, "000", "name");
        assertError(await admin("POST", "/merchants", { name: "" }), 400, "000", "name");
        assertError(await admin("POST", "/merchants", { name: 5 }), 400, "1005", "name");
        assertError(await admin("POST", "/merchants", { name: "X", plan: "gold" }), 400, "1006", "plan");
        assertError(await admin("POST", "/merchants", { name: "n".repeat(201) }), 400, "2009", "name");
        assertError(await admin("POST", "/merchants", { name: "a\u0000b" }), 400, "2008", "name");
        assertError(await admin("POST", `/merchants/${id}/terminals`, { currencies: ["XYZ"] }), 400, "2008", "XYZ");
        assertError(await admin("POST", `/merchants/${id}/terminals`, { currencies: ["EURO"] }), 400, "2017", "currencies");
        assertError(await admin("POST", `/merchants/${id}/terminals`, { currencies: [] }), 400, "000", "currencies");
        assertError(await admin("POST", `/merchants/${id}/terminals`, { currencies: "EUR" }), 400, "1005", "currencies");
        assertError(
          await admin("POST", `/merchants/${id}/users`, { email: "not-an-email", password: "long enough password" }),
          400,
          "2008",
          "email",
        );
        assertError(
          await admin("POST", `/merchants/${id}/users`, { email: "short@example.com", password: "short" }),
          400,
          "2012",
          "password",
        );
        assertError(await admin("POST", `/merchants/${id}/users`, { email: "x@example.com" }), 400, "000", "password");
        assertError(
          await admin("POST", `/merchants/${id}/users`, { email: "x@example.com", password: "long enough password", role: "emperor" }),
          400,
          "2003",
          "role",
        );
        assertError(await admin("POST", `/merchants/${id}/themes`, { name: "T", primaryColor: "red" }), 400, "2008", "primaryColor");
        assertError(
          await admin("POST", `/merchants/${id}/themes`, { name: "T", logoUrl: "http://example.com/logo.png" }),
          400,
          "2008",
          "logoUrl",
        );
        assertError(await admin("POST", `/merchants/${id}/themes`, {}), 400, "000", "name");
      });
      it("refuses a required name of only white space with 000, and stores nothing", async () => {
        const id = server.merchantId;
        const count = async (table: "merchants" | "themes") =>
          Number(
            (await sql<{ count: string | number }>`SELECT count(*) AS count FROM ${sql.table(table)}`.execute(server.db)).rows[0]!.count,
          );
        const [merchants, themes] = [await count("merchants"), await count("themes")];
        for (const name of ["   ", " ", "\t\n \r", "\u00a0\u3000"]) {
          assertError(await admin("POST", "/merchants", { name }), 400, "000", "name");
          assertError(await admin("POST", `/merchants/${id}/themes`, { name }), 400, "000", "name");
          assertError(await admin("POST", `/merchants/${id}/themes`, { name, primaryColor: "#112233" }), 400, "000", "name");
        }
        // before the merchant lookup, like the other body checks
        assertError(await admin("POST", "/merchants/mer_doesnotexist/themes", { name: "   " }), 400, "000", "name");
        assert.equal(await count("merchants"), merchants, "no merchant was created");
        assert.equal(await count("themes"), themes, "no theme was created");
        // a name with text in it is kept, without the spaces around it
        const theme = ok(await admin("POST", `/merchants/${id}/themes`, { name: "  Vetur  " }));
        assert.equal(theme.name, "Vetur");
      });
      it("treats an optional terminal or API key name of only white space as left out", async () => {
        const id = server.merchantId;
        const omitted = ok(await admin("POST", `/merchants/${id}/terminals`));
        const spaces = ok(await admin("POST", `/merchants/${id}/terminals`, { name: "   " }));
        assert.equal(spaces.name, omitted.name);
        const terminalNames = await sql<{
          terminal_identifier: string;
          name: string;
        }>`SELECT terminal_identifier, name FROM terminals WHERE terminal_identifier IN (${omitted.terminalIdentifier}, ${spaces.terminalIdentifier})`.execute(
          server.db,
        );
        assert.equal(terminalNames.rows.length, 2);
        assert.equal(terminalNames.rows[0]!.name, terminalNames.rows[1]!.name, "stored as if left out");
        assert.equal(ok(await admin("POST", `/merchants/${id}/terminals`, { name: "  Kassi 2 " })).name, "Kassi 2");

        const keyOmitted = ok(await admin("POST", `/merchants/${id}/apikeys`));
        const keySpaces = ok(await admin("POST", `/merchants/${id}/apikeys`, { name: " \t " }));
        const keyNamed = ok(await admin("POST", `/merchants/${id}/apikeys`, { name: " Bókhald " }));
        const keyName = async (keyId: string) =>
          (await sql<{ name: string }>`SELECT name FROM api_keys WHERE id = ${keyId}`.execute(server.db)).rows[0]!.name;
        assert.equal(await keyName(keySpaces.keyId), await keyName(keyOmitted.keyId), "stored as if left out");
        assert.equal(await keyName(keyNamed.keyId), "Bókhald");
      });
      it("refuses an e-mail of only white space (2008)", async () => {
        assertError(
          await admin("POST", `/merchants/${server.merchantId}/users`, { email: "     ", password: "long enough password" }),
          400,
          "2008",
          "email",
        );
      });
      it("refuses a second portal user with the same e-mail (409 3003)", async () => {
        ok(await admin("POST", `/merchants/${server.merchantId}/users`, { email: "dup@example.com", password: "long enough password" }));
        assertError(
          await admin("POST", `/merchants/${server.merchantId}/users`, { email: "DUP@example.com", password: "another long password" }),
          409,
          "3003",
        );
      });
      it("answers bad JSON and non-JSON bodies like the payment-link API", async () => {
        const auth = { authorization: `Bearer ${server.adminToken}` };
        assertError(
          await rawRequest({ baseUrl: server.baseUrl }, "POST", "/admin/v1/merchants", {
            body: "{",
            contentType: "application/json",
            headers: auth,
          }),
          400,
          "1000",
        );
        assertError(
          await rawRequest({ baseUrl: server.baseUrl }, "POST", "/admin/v1/merchants", {
            body: "name=x",
            contentType: "application/x-www-form-urlencoded",
            headers: auth,
          }),
          415,
          "3006",
        );
        assertError(
          await rawRequest({ baseUrl: server.baseUrl }, "POST", "/admin/v1/merchants", {
            body: '{"name":"x"}',
            contentType: "text/plain",
            headers: auth,
          }),
          415,
          "3006",
        );
      });
      it("answers 404 JSON for an unknown admin route", async () => {
        assertError(await admin("GET", "/nothing-here"), 404, "2014");
      });
    });

    it("is not served at all without an admin token", async () => {
      const app = await buildApp({ db: server.db, publicBaseUrl: "http://localhost", keyring: testKeyring() });
      try {
        const response = await app.inject({
          method: "POST",
          url: "/admin/v1/merchants",
          payload: { name: "x" },
          headers: { authorization: "Bearer " },
        });
        assert.equal(response.statusCode, 404);
        assert.equal(response.json().errorCode, "2014");
      } finally {
        await app.close();
      }
    });
  });
}
