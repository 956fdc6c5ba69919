// The operator's reads of /admin/v1 (docs/admin-api.md): merchants newest first and paged, and per
// merchant its terminals, API keys, portal users and themes — never a key or a password hash — and
// the theme edit, by the create rules. Unknown merchants and other merchants' themes are 404.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { testBackends } from "../support/databases.ts";
import { assertError, rawRequest } from "../support/fixtures.ts";
import { type ApiResponse, startTestServer, type TestServer } from "../support/harness.ts";

const ONE_PIXEL_PNG =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const PASSWORD = "correct horse battery staple";

for (const backend of testBackends()) {
  describe(`admin API reads (${backend.name})`, () => {
    let server: TestServer;
    /** Every body the admin API answered in this suite, to look for secrets in. */
    const bodies: string[] = [];
    before(async () => {
      server = await startTestServer({ backend });
    });
    after(() => server?.close());

    const admin = async (method: string, path: string, body?: unknown, authorization = `Bearer ${server.adminToken}`) => {
      const response: ApiResponse = await rawRequest({ baseUrl: server.baseUrl }, method, `/admin/v1${path}`, {
        body: body === undefined ? undefined : JSON.stringify(body),
        contentType: body === undefined ? null : "application/json",
        headers: { authorization },
      });
      if (!(method === "POST" && path.endsWith("/apikeys"))) bodies.push(JSON.stringify(response.body));
      return response;
    };
    const ok = async (method: string, path: string, body?: unknown) => {
      const response = await admin(method, path, body);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body;
    };
    const newMerchant = async (name: string): Promise<string> => (await ok("POST", "/merchants", { name })).merchantId;

    describe("one merchant's objects", () => {
      let id: string;
      let apiKey: string;
      let keyId: string;
      before(async () => {
        id = await newMerchant("Reads ehf.");
        await ok("POST", `/merchants/${id}/terminals`, { name: "Till 1", currencies: ["ISK"] });
        await ok("POST", `/merchants/${id}/terminals`, { name: "Till 2" });
        ({ apiKey, keyId } = await ok("POST", `/merchants/${id}/apikeys`, { name: "Shop server" }));
        await ok("POST", `/merchants/${id}/apikeys`, { name: "Second" });
        await ok("POST", `/merchants/${id}/users`, { email: "anna@example.com", password: PASSWORD });
        await ok("POST", `/merchants/${id}/themes`, { name: "Blue", primaryColor: "#0000ff", logoUrl: ONE_PIXEL_PNG });
      });

      it("lists the terminals made", async () => {
        const { data } = await ok("GET", `/merchants/${id}/terminals`);
        assert.deepEqual(
          data.map((t: any) => [t.name, t.currencies]),
          [
            ["Till 1", ["ISK"]],
            ["Till 2", null],
          ],
        );
        for (const t of data) assert.match(t.terminalIdentifier, /^[0-9a-f]{12}$/);
      });

      it("lists API keys newest first with their prefix, never the key, and shows a revoke and a use", async () => {
        const use = await rawRequest({ baseUrl: server.baseUrl, apiKey }, "GET", "/api/v1/paymentlinks?pageSize=1");
        assert.equal(use.status, 200);
        await ok("POST", `/merchants/${id}/apikeys/${keyId}/revoke`);
        const { data } = await ok("GET", `/merchants/${id}/apikeys`);
        assert.deepEqual(
          data.map((k: any) => k.name),
          ["Second", "Shop server"],
        );
        const key = data[1];
        assert.deepEqual(Object.keys(key).sort(), ["createdAt", "keyId", "lastUsedAt", "name", "prefix", "revokedAt"]);
        assert.equal(key.keyId, keyId);
        assert.equal(key.prefix, apiKey.slice(0, 8));
        assert.ok(!Number.isNaN(Date.parse(key.createdAt)) && !Number.isNaN(Date.parse(key.lastUsedAt)));
        assert.ok(!Number.isNaN(Date.parse(key.revokedAt)));
        assert.equal(data[0].revokedAt, null);
        assert.equal(data[0].lastUsedAt, null);
      });

      it("lists portal users without a password hash", async () => {
        const { data } = await ok("GET", `/merchants/${id}/users`);
        assert.equal(data.length, 1);
        assert.deepEqual(Object.keys(data[0]).sort(), ["createdAt", "email", "role", "userId"]);
        assert.equal(data[0].email, "anna@example.com");
        assert.match(data[0].userId, /^usr_/);
      });

      it("lists themes and edits one by the create rules", async () => {
        const { data } = await ok("GET", `/merchants/${id}/themes`);
        assert.equal(data.length, 1);
        const { themeKey } = data[0];
        assert.deepEqual(data[0], { themeKey, name: "Blue", primaryColor: "#0000ff", logoUrl: null, hasLogo: true });
        const path = `/merchants/${id}/themes/${themeKey}`;
        assert.deepEqual(await ok("POST", path, { name: "  Green  ", primaryColor: "#00ff00" }), {
          themeKey,
          name: "Green",
          primaryColor: "#00ff00",
          logoUrl: null,
          hasLogo: true,
        });
        assert.deepEqual(await ok("POST", path, {}), { themeKey, name: "Green", primaryColor: "#00ff00", logoUrl: null, hasLogo: true });
        assert.deepEqual(await ok("POST", path, { primaryColor: "#abcdef", logoUrl: "" }), {
          themeKey,
          name: "Green",
          primaryColor: "#abcdef",
          logoUrl: null,
          hasLogo: false,
        });
        assert.equal((await ok("POST", path, { logoUrl: ONE_PIXEL_PNG })).hasLogo, true);
        assert.equal((await ok("GET", `/merchants/${id}/themes`)).data[0].name, "Green");
      });

      it("refuses a bad theme edit with the create rules' errors and changes nothing", async () => {
        const { themeKey } = (await ok("GET", `/merchants/${id}/themes`)).data[0];
        const path = `/merchants/${id}/themes/${themeKey}`;
        assertError(await admin("POST", path, { name: "   " }), 400, "000", "name");
        assertError(await admin("POST", path, { name: "" }), 400, "000", "name");
        assertError(await admin("POST", path, { name: "n".repeat(101) }), 400, "2009", "name");
        assertError(await admin("POST", path, { primaryColor: "red" }), 400, "2008", "primaryColor");
        assertError(await admin("POST", path, { primaryColor: null }), 400, "1005", "primaryColor");
        assertError(await admin("POST", path, { logoUrl: "http://example.com/logo.png" }), 400, "2008", "logoUrl");
        assertError(await admin("POST", path, { logoUrl: "data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=" }), 400, "2008");
        assertError(await admin("POST", path, { colour: "#000000" }), 400, "1006", "colour");
        const theme = (await ok("GET", `/merchants/${id}/themes`)).data[0];
        assert.deepEqual([theme.name, theme.hasLogo], ["Green", true]);
      });

      it("keeps another merchant's theme out of reach: 404 and unchanged", async () => {
        const other = await newMerchant("Other ehf.");
        const { themeKey } = await ok("POST", `/merchants/${other}/themes`, { name: "Theirs" });
        assertError(await admin("POST", `/merchants/${id}/themes/${themeKey}`, { name: "Mine" }), 404, "2014", themeKey);
        assertError(await admin("POST", `/merchants/${id}/themes/thm_doesnotexist`, { name: "Mine" }), 404, "2014");
        assert.deepEqual(
          (await ok("GET", `/merchants/${other}/themes`)).data.map((t: any) => t.name),
          ["Theirs"],
        );
        for (const resource of ["terminals", "apikeys", "users"]) {
          assert.deepEqual((await ok("GET", `/merchants/${other}/${resource}`)).data, [], resource);
        }
      });

      it("answers 404 for every list of an unknown merchant, and for its theme edit", async () => {
        for (const resource of ["terminals", "apikeys", "users", "themes"]) {
          assertError(await admin("GET", `/merchants/mer_doesnotexist/${resource}`), 404, "2014", "mer_doesnotexist");
        }
        assertError(await admin("POST", "/merchants/mer_doesnotexist/themes/thm_x", { name: "X" }), 404, "2014", "mer_doesnotexist");
      });

      it("refuses the reads without the admin token", async () => {
        for (const path of ["/merchants", `/merchants/${id}/terminals`, `/merchants/${id}/apikeys`, `/merchants/${id}/users`]) {
          assertError(await admin("GET", path, undefined, "Bearer wrong"), 401, "3001");
        }
        assertError(await admin("GET", `/merchants/${id}/apikeys`, undefined, `Bearer ${apiKey}`), 401, "3001");
        const { themeKey } = (await ok("GET", `/merchants/${id}/themes`)).data[0];
        assertError(await admin("POST", `/merchants/${id}/themes/${themeKey}`, { name: "X" }, "Bearer wrong"), 401, "3001");
      });

      it("never answered with an API key or a password", () => {
        assert.ok(bodies.length > 20);
        for (const body of bodies) {
          assert.ok(!body.includes(apiKey), `an API key in ${body}`);
          assert.ok(!body.includes(PASSWORD), `the password in ${body}`);
          assert.ok(!/scrypt|\$s\d|key_hash|password_hash/i.test(body), `a hash in ${body}`);
        }
      });
    });

    describe("the merchant list", () => {
      it("lists merchants newest first with a total, a page at a time", async () => {
        const made = [await newMerchant("Page A"), await newMerchant("Page B"), await newMerchant("Page C")];
        const first = await ok("GET", "/merchants?pageSize=2");
        assert.deepEqual(
          first.data.map((m: any) => m.merchantId),
          [made[2], made[1]],
        );
        assert.deepEqual(Object.keys(first.data[0]).sort(), ["createdAt", "merchantId", "name"]);
        assert.equal(first.data[0].name, "Page C");
        assert.ok(!Number.isNaN(Date.parse(first.data[0].createdAt)));
        const second = await ok("GET", "/merchants?page=1&pageSize=2");
        assert.equal(second.data[0].merchantId, made[0]);
        assert.equal(second.totalCount, first.totalCount);
        const all = await ok("GET", "/merchants?pageSize=100");
        assert.equal(all.totalCount, all.data.length);
        assert.ok(all.data.some((m: any) => m.merchantId === server.merchantId));
        const times = all.data.map((m: any) => Date.parse(m.createdAt));
        assert.deepEqual(
          times,
          [...times].sort((a: number, b: number) => b - a),
        );
        const byDefault = await ok("GET", "/merchants");
        assert.deepEqual(byDefault.data, all.data.slice(0, 20));
        const beyond = await ok("GET", "/merchants?page=1000&pageSize=100");
        assert.deepEqual(beyond, { data: [], totalCount: all.totalCount });
      });

      it("refuses paging out of range or unknown query fields with 400", async () => {
        for (const query of ["page=-1", "page=1000001", "page=x", "pageSize=0", "pageSize=101", "pageSize=1.5", "state=Pending"]) {
          const response = await admin("GET", `/merchants?${query}`);
          assert.equal(response.status, 400, `${query}: ${JSON.stringify(response.body)}`);
          assertError(response, 400, response.body.errorCode);
        }
      });
    });
  });
}
