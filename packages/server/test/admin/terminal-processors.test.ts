// A terminal's payment processor set through the admin API (docs/processors.md#configuring-a-terminal):
// the sandbox by default; each real processor's credentials checked field by field, stored with the
// secrets encrypted under the keyring, shown back only masked, and read back in clear by Paylink
// alone; the webhook address to register at the processor; baseUrl only when the operator allows it.

import assert from "node:assert/strict";
import { after, before, describe, it, test } from "node:test";
import { sql } from "kysely";
import { ConfigError, loadConfig, startupWarnings } from "../../src/config.ts";
import { createMerchant, createTerminal } from "../../src/db/merchants-repository.ts";
import { loadTerminalProcessor, saveTerminalProcessor } from "../../src/db/terminal-processors-repository.ts";
import { checkStoredSecrets, SecretKeyring } from "../../src/security/keyring.ts";
import { auditRowsOf } from "../support/audit.ts";
import { testBackends } from "../support/databases.ts";
import { assertError, rawRequest } from "../support/fixtures.ts";
import { type ApiResponse, startTestServer, type TestServer } from "../support/harness.ts";
import { TEST_SECRET_KEY, testKeyring } from "../support/keyring.ts";

const STRAUMUR_HMAC = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90";
const ADYEN_HMAC = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056";

/** One valid configuration per real processor, each with secrets that are easy to look for. */
const STRAUMUR = {
  type: "straumur",
  environment: "test",
  apiKey: "straumur-api-key-SECRET-0001",
  terminalIdentifier: "a1b2c3d4e5f6",
  hmacKey: STRAUMUR_HMAC,
  themeKey: "theme-blue",
};
const ADYEN = {
  type: "adyen",
  environment: "live",
  apiKey: "AQEyhmfxSECRET-adyen-key-0002",
  merchantAccount: "KaffiECOM",
  hmacKey: ADYEN_HMAC,
  liveEndpointUrlPrefix: "1797a841fbb37ca7-KaffiEhf",
};
const STRIPE = {
  type: "stripe",
  secretKey: "sk_live_51HSECRETstripekey0003",
  webhookSecret: "whsec_SECRETsigning0004",
};
const SECRETS = [STRAUMUR.apiKey, STRAUMUR.hmacKey, ADYEN.apiKey, ADYEN.hmacKey, STRIPE.secretKey, STRIPE.webhookSecret];

/** The response's text holds none of the secrets, nor their long middles. */
function assertNoSecret(text: string) {
  for (const secret of SECRETS) {
    assert.ok(!text.includes(secret), `a secret appears in ${text}`);
    assert.ok(!text.includes(secret.slice(0, -4)), `a secret's first part appears in ${text}`);
  }
}

for (const backend of testBackends()) {
  describe(`terminal processors in the admin API (${backend.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ backend });
    });
    after(() => server?.close());

    const admin = (method: string, path: string, body?: unknown): Promise<ApiResponse> =>
      rawRequest({ baseUrl: server.baseUrl }, method, `/admin/v1${path}`, {
        body: body === undefined ? undefined : JSON.stringify(body),
        contentType: body === undefined ? null : "application/json",
        headers: { authorization: `Bearer ${server.adminToken}` },
      });
    const ok = (response: ApiResponse) => {
      assert.equal(response.status, 200, JSON.stringify(response.body));
      assertNoSecret(JSON.stringify(response.body));
      return response.body;
    };
    const terminals = () => admin("GET", `/merchants/${server.merchantId}/terminals`).then(ok);
    const listed = async (terminalIdentifier: string) => {
      const found = (await terminals()).data.find((t: any) => t.terminalIdentifier === terminalIdentifier);
      assert.ok(found, `terminal ${terminalIdentifier} is listed`);
      return found;
    };
    const putProcessor = (terminalIdentifier: string, processor: unknown, merchantId = server.merchantId) =>
      admin("PUT", `/merchants/${merchantId}/terminals/${terminalIdentifier}/processor`, { processor });
    const storedRow = async (terminalIdentifier: string) =>
      (
        await sql<{ processor_type: string; processor_settings: unknown; processor_secrets: string | null }>`
          SELECT processor_type, processor_settings, processor_secrets FROM terminals WHERE terminal_identifier = ${terminalIdentifier}`.execute(
          server.db,
        )
      ).rows[0]!;

    it("gives every terminal the sandbox by default, with the address of its processor webhooks", async () => {
      const created = ok(await admin("POST", `/merchants/${server.merchantId}/terminals`, { name: "Kassi" }));
      assert.deepEqual(created.processor, { type: "sandbox" });
      assert.equal(created.webhookUrl, `${server.baseUrl}/processors/${created.terminalIdentifier}/webhook`);
      const shown = await listed(created.terminalIdentifier);
      assert.deepEqual(shown, {
        terminalIdentifier: created.terminalIdentifier,
        name: "Kassi",
        currencies: null,
        processor: { type: "sandbox" },
        webhookUrl: `${server.baseUrl}/processors/${created.terminalIdentifier}/webhook`,
      });
      // The fixture's terminal, made without the admin API, is a sandbox terminal too.
      assert.deepEqual((await listed(server.terminalIdentifier)).processor, { type: "sandbox" });
      assert.deepEqual(await loadTerminalProcessor(server.db, testKeyring(), created.terminalIdentifier), { type: "sandbox" });
      const row = await storedRow(created.terminalIdentifier);
      assert.deepEqual([row.processor_type, row.processor_settings, row.processor_secrets], ["sandbox", null, null]);
    });

    const cases = [
      {
        label: "the live gateway (straumur)",
        input: STRAUMUR,
        shown: {
          type: "straumur",
          environment: "test",
          apiKey: "••••0001",
          terminalIdentifier: "a1b2c3d4e5f6",
          hmacKey: `••••${STRAUMUR_HMAC.slice(-4)}`,
          themeKey: "theme-blue",
          baseUrl: null,
        },
        clear: { ...STRAUMUR, baseUrl: null },
      },
      {
        label: "Adyen, live",
        input: ADYEN,
        shown: {
          type: "adyen",
          environment: "live",
          apiKey: "••••0002",
          merchantAccount: "KaffiECOM",
          hmacKey: `••••${ADYEN_HMAC.slice(-4)}`,
          liveEndpointUrlPrefix: "1797a841fbb37ca7-KaffiEhf",
          baseUrl: null,
        },
        clear: { ...ADYEN, baseUrl: null },
      },
      {
        label: "Stripe (live by its key)",
        input: STRIPE,
        shown: { type: "stripe", environment: "live", secretKey: "••••0003", webhookSecret: "••••0004", baseUrl: null },
        clear: { ...STRIPE, baseUrl: null },
      },
    ];
    for (const { label, input, shown, clear } of cases) {
      it(`stores ${label} with its secrets encrypted, and shows them only masked`, async () => {
        const created = ok(await admin("POST", `/merchants/${server.merchantId}/terminals`, { name: label, processor: input }));
        assert.deepEqual(created.processor, shown);
        assert.equal(created.webhookUrl, `${server.baseUrl}/processors/${created.terminalIdentifier}/webhook`);
        assert.deepEqual((await listed(created.terminalIdentifier)).processor, shown);

        const row = await storedRow(created.terminalIdentifier);
        assert.equal(row.processor_type, input.type);
        assert.ok(row.processor_secrets?.startsWith("v1."), "the secrets are an encrypted value");
        const rawText = JSON.stringify(row);
        for (const secret of SECRETS) assert.ok(!rawText.includes(secret), "no secret in clear in the terminals row");

        // Paylink itself reads them back in clear, through the keyring.
        assert.deepEqual(await loadTerminalProcessor(server.db, testKeyring(), created.terminalIdentifier), clear);
      });
    }

    it("replaces a configuration as a whole with PUT, and records who did it without a secret", async () => {
      const { terminalIdentifier } = ok(await admin("POST", `/merchants/${server.merchantId}/terminals`, { processor: STRAUMUR }));
      const before = await storedRow(terminalIdentifier);
      const answer = ok(await putProcessor(terminalIdentifier, STRIPE));
      assert.deepEqual(answer, {
        terminalIdentifier,
        processor: { type: "stripe", environment: "live", secretKey: "••••0003", webhookSecret: "••••0004", baseUrl: null },
        webhookUrl: `${server.baseUrl}/processors/${terminalIdentifier}/webhook`,
      });
      assert.deepEqual(await loadTerminalProcessor(server.db, testKeyring(), terminalIdentifier), { ...STRIPE, baseUrl: null });
      const after = await storedRow(terminalIdentifier);
      assert.notEqual(after.processor_secrets, before.processor_secrets);

      // A new key of the same processor replaces the old one (secrets are replaceable, never shown).
      const newKey = { ...STRIPE, secretKey: "sk_test_51HreplacedKey9999" };
      assert.deepEqual(ok(await putProcessor(terminalIdentifier, newKey)).processor.secretKey, "••••9999");
      assert.equal((await loadTerminalProcessor(server.db, testKeyring(), terminalIdentifier))?.type, "stripe");
      assert.equal(ok(await putProcessor(terminalIdentifier, newKey)).processor.environment, "test");

      // Back to the sandbox: nothing of the processor is kept.
      assert.deepEqual(ok(await putProcessor(terminalIdentifier, { type: "sandbox" })).processor, { type: "sandbox" });
      const cleared = await storedRow(terminalIdentifier);
      assert.deepEqual([cleared.processor_type, cleared.processor_settings, cleared.processor_secrets], ["sandbox", null, null]);

      const entries = (await auditRowsOf(server.db, server.merchantId)).filter(
        (row) => row.action === "terminal.processor-change" && row.object_id === terminalIdentifier,
      );
      assert.deepEqual(
        entries.map((row) => [row.actor_kind, row.object_type, row.details]),
        [
          ["operator", "terminal", { type: "straumur", environment: "test" }],
          ["operator", "terminal", { type: "stripe", environment: "live" }],
          ["operator", "terminal", { type: "stripe", environment: "test" }],
          ["operator", "terminal", { type: "stripe", environment: "test" }],
          ["operator", "terminal", { type: "sandbox" }],
        ],
      );
      assertNoSecret(JSON.stringify(await auditRowsOf(server.db, server.merchantId)));
    });

    describe("refuses a configuration that cannot work, naming the field", () => {
      const refusals: Array<[string, unknown, string, string]> = [
        ["an hmacKey that is not hex", { ...STRAUMUR, hmacKey: "zz".repeat(32) }, "2008", "processor.hmacKey"],
        ["an hmacKey of odd length", { ...ADYEN, hmacKey: `${ADYEN_HMAC}A` }, "2008", "processor.hmacKey"],
        ["a short hmacKey", { ...ADYEN, hmacKey: "ABCD" }, "2012", "processor.hmacKey"],
        ["a missing apiKey", { ...STRAUMUR, apiKey: undefined }, "000", "processor.apiKey"],
        ["an empty merchantAccount", { ...ADYEN, merchantAccount: "  " }, "000", "processor.merchantAccount"],
        ["a missing environment", { ...STRAUMUR, environment: undefined }, "000", "processor.environment"],
        ["an unknown environment", { ...STRAUMUR, environment: "staging" }, "2003", "processor.environment"],
        ["a live Adyen without its URL prefix", { ...ADYEN, liveEndpointUrlPrefix: undefined }, "000", "processor.liveEndpointUrlPrefix"],
        [
          "an Adyen URL prefix that is not a host part",
          { ...ADYEN, liveEndpointUrlPrefix: "evil.example/x" },
          "2008",
          "liveEndpointUrlPrefix",
        ],
        ["a Stripe key without sk_test_ or sk_live_", { ...STRIPE, secretKey: "pk_live_51Hpublishable" }, "2008", "processor.secretKey"],
        ["a Stripe webhook secret without whsec_", { ...STRIPE, webhookSecret: "secret_abc" }, "2008", "processor.webhookSecret"],
        [
          "a gateway terminal that is not 12 characters",
          { ...STRAUMUR, terminalIdentifier: "abc" },
          "2017",
          "processor.terminalIdentifier",
        ],
        ["an unknown field", { ...STRAUMUR, password: "x" }, "1006", "processor.password"],
        ["another processor's field", { ...STRIPE, merchantAccount: "KaffiECOM" }, "1006", "processor.merchantAccount"],
        ["an environment on Stripe (it follows the key)", { ...STRIPE, environment: "live" }, "1006", "processor.environment"],
        ["a field on the sandbox", { type: "sandbox", apiKey: "x" }, "1006", "processor.apiKey"],
        ["an unknown type", { type: "paypal" }, "2003", "processor.type"],
        ["no type", { apiKey: "x" }, "000", "processor.type"],
        ["a key that is not a string", { ...STRAUMUR, apiKey: 12 }, "1005", "processor.apiKey"],
        ["a masked secret sent back", { ...STRIPE, webhookSecret: "••••0004" }, "2008", "processor.webhookSecret"],
        [
          "baseUrl when the operator does not allow it",
          { ...STRIPE, baseUrl: "http://127.0.0.1:9/" },
          "2008",
          "PAYLINK_PROCESSOR_BASE_URLS",
        ],
      ];
      for (const [label, processor, code, names] of refusals) {
        it(`${label}: 400 ${code}, on create and on PUT, and nothing changes`, async () => {
          const terminalsBefore = (await terminals()).data.length;
          const onCreate = await admin("POST", `/merchants/${server.merchantId}/terminals`, { processor });
          assertError(onCreate, 400, code, names);
          assertNoSecret(JSON.stringify(onCreate.body));
          assert.equal((await terminals()).data.length, terminalsBefore, "no terminal was made");

          const rowBefore = await storedRow(server.terminalIdentifier);
          assertError(await putProcessor(server.terminalIdentifier, processor), 400, code, names);
          assert.deepEqual(await storedRow(server.terminalIdentifier), rowBefore);
        });
      }
      it("a body without processor, or with other fields: 400", async () => {
        assertError(
          await admin("PUT", `/merchants/${server.merchantId}/terminals/${server.terminalIdentifier}/processor`, {}),
          400,
          "000",
          "processor",
        );
        assertError(
          await admin("PUT", `/merchants/${server.merchantId}/terminals/${server.terminalIdentifier}/processor`, {
            processor: { type: "sandbox" },
            name: "x",
          }),
          400,
          "1006",
          "name",
        );
      });
    });

    it("answers 404 for another merchant's terminal or an unknown one, and changes neither", async () => {
      const other = await server.addMerchant();
      const before = await storedRow(other.terminalIdentifier);
      assertError(await putProcessor(other.terminalIdentifier, STRIPE), 404, "2014", other.terminalIdentifier);
      assert.deepEqual(await storedRow(other.terminalIdentifier), before);
      assertError(await putProcessor("000000000000", STRIPE), 404, "2014");
      assertError(await putProcessor(server.terminalIdentifier, STRIPE, "mer_unknown"), 404, "2014");
      // The other merchant's own path reaches it.
      assert.equal(ok(await putProcessor(other.terminalIdentifier, STRIPE, other.merchantId)).processor.type, "stripe");
      assert.ok(!(await terminals()).data.some((t: any) => t.terminalIdentifier === other.terminalIdentifier));
    });

    it("leaves the start-up check of stored secrets passing", async () => {
      assert.equal(await checkStoredSecrets(server.db, testKeyring()), 0);
    });
  });

  describe(`processor base URLs allowed by the operator (${backend.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ backend, allowProcessorBaseUrls: true });
    });
    after(() => server?.close());

    it("accepts and shows baseUrl (without its trailing slash), and still refuses one that is not an http(s) URL", async () => {
      const admin = (method: string, path: string, body: unknown) =>
        rawRequest({ baseUrl: server.baseUrl }, method, `/admin/v1${path}`, {
          body: JSON.stringify(body),
          contentType: "application/json",
          headers: { authorization: `Bearer ${server.adminToken}` },
        });
      const processor = { ...STRAUMUR, baseUrl: "http://127.0.0.1:4010/api/v1/" };
      const created = await admin("POST", `/merchants/${server.merchantId}/terminals`, { processor });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      assert.equal(created.body.processor.baseUrl, "http://127.0.0.1:4010/api/v1");
      const loaded = await loadTerminalProcessor(server.db, testKeyring(), created.body.terminalIdentifier);
      assert.equal(loaded?.type === "straumur" ? loaded.baseUrl : "not straumur", "http://127.0.0.1:4010/api/v1");
      for (const baseUrl of ["ftp://example.com/", "not a url", "https://user:pw@example.com/api", "https://example.com/api?x=1"]) {
        const path = `/merchants/${server.merchantId}/terminals/${server.terminalIdentifier}/processor`;
        assertError(await admin("PUT", path, { processor: { ...STRIPE, baseUrl } }), 400, "2008", "processor.baseUrl");
      }
    });
  });

  test(`stored processor secrets (${backend.name}): a wrong key stops the start; a previous key is re-encrypted`, async () => {
    const database = await backend.open();
    try {
      const keyA = new SecretKeyring(TEST_SECRET_KEY);
      const keyB = "0f".repeat(32);
      const { merchantId } = await createMerchant(database.db, "m");
      const terminal = await createTerminal(database.db, merchantId, "t", null);
      const config = { ...ADYEN, type: "adyen", environment: "live", baseUrl: null } as const;
      assert.equal(await saveTerminalProcessor(database.db, keyA, merchantId, terminal.terminalIdentifier, config), true);
      assert.equal(await saveTerminalProcessor(database.db, keyA, "mer_other", terminal.terminalIdentifier, config), false);
      assert.equal(await checkStoredSecrets(database.db, keyA), 0);
      await assert.rejects(
        checkStoredSecrets(database.db, new SecretKeyring(keyB)),
        (error: Error) => error instanceof ConfigError && /PAYLINK_SECRET_KEY_PREVIOUS/.test(error.message),
      );
      assert.equal(await checkStoredSecrets(database.db, new SecretKeyring(keyB, [TEST_SECRET_KEY])), 1, "the terminal's secrets");
      assert.equal(await checkStoredSecrets(database.db, new SecretKeyring(keyB)), 0, "now under the new key alone");
      assert.deepEqual(await loadTerminalProcessor(database.db, new SecretKeyring(keyB), terminal.terminalIdentifier), config);
      // The ciphertext is bound to its terminal: copied to another, it does not decrypt.
      const second = await createTerminal(database.db, merchantId, "t2", null);
      await sql`UPDATE terminals SET (processor_type, processor_settings, processor_secrets) =
        (SELECT processor_type, processor_settings, processor_secrets FROM terminals WHERE terminal_identifier = ${terminal.terminalIdentifier})
        WHERE terminal_identifier = ${second.terminalIdentifier}`.execute(database.db);
      await assert.rejects(loadTerminalProcessor(database.db, new SecretKeyring(keyB), second.terminalIdentifier), /does not authenticate/);
      assert.equal(await loadTerminalProcessor(database.db, keyA, "000000000000"), undefined);
    } finally {
      await database.destroy();
    }
  });
}

test("PAYLINK_PROCESSOR_BASE_URLS: deny by default, allow with a warning at start, anything else refused", () => {
  assert.equal(loadConfig({}).processorBaseUrls, "deny");
  assert.equal(loadConfig({ PAYLINK_PROCESSOR_BASE_URLS: "deny" }).processorBaseUrls, "deny");
  const allowed = loadConfig({ PAYLINK_PROCESSOR_BASE_URLS: "allow" });
  assert.equal(allowed.processorBaseUrls, "allow");
  assert.match(startupWarnings(allowed).join("\n"), /PAYLINK_PROCESSOR_BASE_URLS=allow/);
  assert.deepEqual(startupWarnings(loadConfig({})), []);
  assert.throws(() => loadConfig({ PAYLINK_PROCESSOR_BASE_URLS: "yes" }), /PAYLINK_PROCESSOR_BASE_URLS must be allow or deny/);
});
