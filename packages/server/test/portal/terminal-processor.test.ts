// An owner sets a terminal's processor in the portal (docs/portal.md#developers): the two steps,
// the same rules and audit entry as the admin API, secrets never shown nor logged, an empty secret
// keeping the saved one, and every other role and merchant refused.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, describe, test } from "node:test";
import { loadTerminalProcessor } from "../../src/db/terminal-processors-repository.ts";
import { createLogger } from "../../src/logging.ts";
import type { ProcessorConfig } from "../../src/payments/processor-config.ts";
import { auditRowsOf } from "../support/audit.ts";
import { testBackends } from "../support/databases.ts";
import { rawRequest } from "../support/fixtures.ts";
import { type ApiResponse, type MerchantFixture, startTestServer, type TestServer } from "../support/harness.ts";
import { testKeyring } from "../support/keyring.ts";
import { type PortalClient, type PortalPage, signedIn } from "../support/portal.ts";

const API_KEY = "straumur-api-key-Qz7w";
const HMAC_KEY = "00112233445566778899aabbccddeeff00112233445566778899aabbccddee01";
const OTHER_API_KEY = "second-api-key-Xy9v";
const BAD_API_KEY = "typed-but-refused-Kp3m";
const SECRETS = [API_KEY, HMAC_KEY, OTHER_API_KEY, BAD_API_KEY];

for (const backend of testBackends()) {
  describe(`portal: an owner sets a terminal's processor (${backend.name})`, () => {
    let server: TestServer;
    let owner: PortalClient;
    let other: MerchantFixture;
    let terminal: string;
    const written: string[] = [];
    const logger = createLogger(
      "info",
      new Writable({
        write(chunk, _encoding, done) {
          written.push(String(chunk));
          done();
        },
      }),
    );

    before(async () => {
      server = await startTestServer({ backend, logger });
      owner = await signedIn(server);
      other = await server.addMerchant();
      const created = await admin("POST", `/merchants/${server.merchantId}/terminals`, { name: "Web shop" });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      terminal = created.body.terminalIdentifier;
    });
    after(() => server?.close());

    const admin = (method: string, path: string, body?: unknown): Promise<ApiResponse> =>
      rawRequest({ baseUrl: server.baseUrl }, method, `/admin/v1${path}`, {
        body: body === undefined ? undefined : JSON.stringify(body),
        contentType: body === undefined ? null : "application/json",
        headers: { authorization: `Bearer ${server.adminToken}` },
      });
    const pathOf = (terminalIdentifier: string) => `/portal/developers/terminals/${terminalIdentifier}/processor`;
    const saved = (terminalIdentifier = terminal): Promise<ProcessorConfig | undefined> =>
      loadTerminalProcessor(server.db, testKeyring(), terminalIdentifier);
    const assertNoSecret = (page: PortalPage) => {
      for (const secret of SECRETS) assert.ok(!page.html.includes(secret), `the page holds ${secret}`);
    };
    /** Step 2 of `type`, read as a browser would, then posted with `fields`. */
    const postSettings = async (client: PortalClient, type: string, fields: Record<string, string>, lang = "en") => {
      const form = await client.get(`${pathOf(terminal)}?type=${type}&lang=${lang}`);
      assert.equal(form.status, 200, form.text.slice(0, 300));
      return client.post(pathOf(terminal), fields, form);
    };

    test("the owner sees the link, chooses straumur and saves it: admin API and Developers page show it, audited", async () => {
      const developers = await owner.get("/portal/developers?lang=en");
      assert.ok(developers.html.includes(`href="${pathOf(terminal)}"`), "a Change processor link per terminal");
      assert.match(developers.text, /As an owner you can change it/);

      const step1 = await owner.get(pathOf(terminal));
      assert.equal(step1.status, 200);
      assert.match(step1.html, new RegExp(`<form method="get" action="${pathOf(terminal)}"`));
      for (const type of ["sandbox", "straumur", "adyen", "stripe"]) assert.match(step1.html, new RegExp(`name="type" value="${type}"`));

      const step2 = await owner.get(`${pathOf(terminal)}?type=straumur`);
      assert.equal(step2.status, 200);
      assert.match(step2.html, /<input id="processor-apiKey" name="apiKey"[^>]*type="password"[^>]*autocomplete="off"/);
      assert.match(step2.html, /<input id="processor-hmacKey" name="hmacKey"[^>]*type="password"/);
      assert.doesNotMatch(step2.html, /name="baseUrl"/, "the API base is the operator's");
      assert.match(step2.text, /Saved encrypted and never shown again\./);

      const done = await owner.post(
        pathOf(terminal),
        { environment: "test", apiKey: API_KEY, terminalIdentifier: "abcdef123456", hmacKey: HMAC_KEY, themeKey: "" },
        step2,
      );
      assert.equal(done.status, 303, done.text.slice(0, 300));
      assert.equal(done.location, "/portal/developers?done=processor-changed");

      const listed = await admin("GET", `/merchants/${server.merchantId}/terminals`);
      const row = listed.body.data.find((t: { terminalIdentifier: string }) => t.terminalIdentifier === terminal);
      assert.equal(row.processor.type, "straumur");
      assert.equal(row.processor.environment, "test");
      assert.equal(row.processor.terminalIdentifier, "abcdef123456");
      assert.equal(row.processor.apiKey, `••••${API_KEY.slice(-4)}`, "masked");
      assert.equal(row.processor.hmacKey, `••••${HMAC_KEY.slice(-4)}`, "masked");

      const page = await owner.get(done.location!);
      assert.equal(page.status, 200);
      assert.match(page.text, /The terminal's processor was changed\./);
      assert.match(page.html, new RegExp(`data-terminal="${terminal}"[\\s\\S]*data-processor="straumur"`));
      assertNoSecret(page);

      const rows = (await auditRowsOf(server.db, server.merchantId)).filter((r) => r.action === "terminal.processor-change");
      const last = rows.at(-1);
      assert.ok(last, "an audit row terminal.processor-change");
      assert.equal(last.object_id, terminal);
      assert.equal(last.actor_kind, "user");
      assert.deepEqual(last.details, { type: "straumur", environment: "test" });
      assert.ok(!JSON.stringify(rows).includes(API_KEY) && !JSON.stringify(rows).includes(HMAC_KEY));
    });

    test("a bad HMAC key: 400, the error beside its field, the entered values kept but no secret, nothing changed", async () => {
      const before = await saved();
      const audits = (await auditRowsOf(server.db, server.merchantId)).length;
      const page = await postSettings(owner, "straumur", {
        environment: "live",
        apiKey: BAD_API_KEY,
        terminalIdentifier: "zyxwvu654321",
        hmacKey: "not-hex-at-all",
      });
      assert.equal(page.status, 400);
      assert.match(page.html, /<input id="processor-hmacKey" name="hmacKey" aria-invalid="true"/);
      assert.match(page.html, /<p class="error" id="processor-hmacKey-error">processor\.hmacKey must be hexadecimal/);
      assert.match(page.html, /name="terminalIdentifier"[^>]*value="zyxwvu654321"/, "the entered non-secret value is kept");
      assert.match(page.html, /<option value="live" selected/);
      assert.ok(!page.html.includes("not-hex-at-all"), "a secret typed is not echoed");
      assertNoSecret(page);
      assert.deepEqual(await saved(), before, "nothing changed");
      assert.equal((await auditRowsOf(server.db, server.merchantId)).length, audits);

      const is = await postSettings(owner, "straumur", { environment: "test", apiKey: "", terminalIdentifier: "short", hmacKey: "" }, "is");
      assert.equal(is.status, 400);
      assert.match(is.html, /id="processor-terminalIdentifier-error">Posinn hjá greiðslugáttinni er nákvæmlega 12 stafir\./);
      await owner.get("/portal/developers?lang=en");
      assert.deepEqual(await saved(), before);
    });

    test("with the same type, empty secret fields keep the saved secrets; non-secret values are filled in", async () => {
      const form = await owner.get(`${pathOf(terminal)}?type=straumur`);
      assert.match(form.html, /name="terminalIdentifier"[^>]*value="abcdef123456"/);
      assert.match(form.text, /Leave empty to keep the one saved\./);
      assert.doesNotMatch(form.html, /<input[^>]*type="password"[^>]*value=/, "no secret is filled in");
      assertNoSecret(form);
      const done = await owner.post(
        pathOf(terminal),
        { environment: "live", apiKey: "", terminalIdentifier: "abcdef654321", hmacKey: "" },
        form,
      );
      assert.equal(done.status, 303, done.text.slice(0, 300));
      assert.deepEqual(await saved(), {
        type: "straumur",
        environment: "live",
        apiKey: API_KEY,
        terminalIdentifier: "abcdef654321",
        hmacKey: HMAC_KEY,
        themeKey: null,
        baseUrl: null,
      });
      // A new secret replaces the saved one; the other empty one is kept.
      const again = await postSettings(owner, "straumur", {
        environment: "live",
        apiKey: OTHER_API_KEY,
        terminalIdentifier: "abcdef654321",
        hmacKey: "",
      });
      assert.equal(again.status, 303);
      const config = await saved();
      assert.equal(config?.type === "straumur" && config.apiKey, OTHER_API_KEY);
      assert.equal(config?.type === "straumur" && config.hmacKey, HMAC_KEY);
    });

    test("another type keeps no secret: empty secrets are required", async () => {
      const before = await saved();
      const form = await owner.get(`${pathOf(terminal)}?type=stripe`);
      assert.doesNotMatch(form.text, /Leave empty to keep/);
      const page = await owner.post(pathOf(terminal), { secretKey: "", webhookSecret: "" }, form);
      assert.equal(page.status, 400);
      assert.match(page.html, /id="processor-secretKey-error">processor\.secretKey is required/);
      assert.deepEqual(await saved(), before);
    });

    test("adyen live needs its URL prefix (beside the field); stripe's environment follows its key", async () => {
      const adyen = { environment: "live", apiKey: API_KEY, merchantAccount: "ShopECOM", hmacKey: HMAC_KEY, liveEndpointUrlPrefix: "" };
      const refused = await postSettings(owner, "adyen", adyen);
      assert.equal(refused.status, 400);
      assert.match(refused.html, /id="processor-liveEndpointUrlPrefix-error">processor\.liveEndpointUrlPrefix is required/);
      assert.match(refused.html, /name="merchantAccount"[^>]*value="ShopECOM"/);
      assertNoSecret(refused);
      const done = await postSettings(owner, "adyen", { ...adyen, liveEndpointUrlPrefix: "1797a841fbb37ca7-AdyenDemo" });
      assert.equal(done.status, 303, done.text.slice(0, 300));
      assert.equal((await saved())?.type, "adyen");

      const stripe = await postSettings(owner, "stripe", { secretKey: "sk_live_abc123", webhookSecret: "whsec_def456" });
      assert.equal(stripe.status, 303, stripe.text.slice(0, 300));
      const page = await owner.get("/portal/developers?lang=en");
      assert.match(
        page.html,
        new RegExp(`data-terminal="${terminal}"[\\s\\S]*?data-processor="stripe">Processor: Stripe, live environment`),
      );
      assert.ok(!page.html.includes("sk_live_abc123") && !page.html.includes("whsec_def456"));
      const rows = (await auditRowsOf(server.db, server.merchantId)).filter((r) => r.action === "terminal.processor-change");
      assert.deepEqual(rows.at(-1)?.details, { type: "stripe", environment: "live" });
    });

    test("an admin or a developer is refused, and nothing changes; they see no link", async () => {
      const before = await saved();
      for (const role of ["admin", "developer"] as const) {
        const client = await signedIn(server, server, `${role}-tp@example.com`, role);
        const developers = await client.get("/portal/developers?lang=en");
        assert.equal(developers.status, 200);
        assert.ok(!developers.html.includes(pathOf(terminal)), `${role} sees no Change processor link`);
        const page = await client.get(`${pathOf(terminal)}?type=sandbox`);
        assert.equal(page.status, 403, role);
        const csrf = await client.csrf();
        const posted = await client.post(pathOf(terminal), { csrf, type: "sandbox" });
        assert.equal(posted.status, 403, role);
      }
      assert.deepEqual(await saved(), before);
    });

    test("a form without the CSRF token is refused", async () => {
      const before = await saved();
      const posted = await owner.post(pathOf(terminal), { type: "sandbox" });
      assert.equal(posted.status, 403);
      assert.deepEqual(await saved(), before);
    });

    test("another merchant's terminal is not found, read or posted", async () => {
      const csrf = await owner.csrf();
      assert.equal((await owner.get(pathOf(other.terminalIdentifier))).status, 404);
      assert.equal((await owner.get(`${pathOf(other.terminalIdentifier)}?type=straumur`)).status, 404);
      const posted = await owner.post(pathOf(other.terminalIdentifier), { csrf, type: "sandbox" });
      assert.equal(posted.status, 404);
      assert.deepEqual(await saved(other.terminalIdentifier), { type: "sandbox" });
      assert.equal((await owner.get(pathOf("no-such-terminal"))).status, 404);
    });

    test("back to the sandbox: a confirmation, and the saved credentials are gone", async () => {
      const form = await owner.get(`${pathOf(terminal)}?type=sandbox`);
      assert.match(form.text, /The terminal goes back to the sandbox/);
      const done = await owner.post(pathOf(terminal), {}, form);
      assert.equal(done.status, 303);
      assert.deepEqual(await saved(), { type: "sandbox" });
      const developers = await owner.get("/portal/developers?lang=en");
      assert.match(developers.html, new RegExp(`data-terminal="${terminal}"[\\s\\S]*?data-processor="sandbox"`));
      const listed = await admin("GET", `/merchants/${server.merchantId}/terminals`);
      const row = listed.body.data.find((t: { terminalIdentifier: string }) => t.terminalIdentifier === terminal);
      assert.deepEqual(row.processor, { type: "sandbox" });
      const rows = (await auditRowsOf(server.db, server.merchantId)).filter((r) => r.action === "terminal.processor-change");
      assert.deepEqual(rows.at(-1)?.details, { type: "sandbox" });
    });

    test("no secret reached the logs", () => {
      const logs = written.join("");
      assert.match(logs, /terminal processor changed in the portal/, "the change was logged");
      for (const secret of [...SECRETS, "not-hex-at-all", "sk_live_abc123", "whsec_def456"])
        assert.ok(!logs.includes(secret), `the logs hold ${secret}`);
    });
  });
}
