// The portal's Developers page shows each terminal's processor (docs/portal.md#developers):
// its readable name and environment, the non-secret setting that names the account, and for a real
// processor the webhook address to register there, with a copy button. Shown, not edited here (an
// owner follows a link to change it, test/portal/terminal-processor), and no secret, not even
// masked, reaches the page.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { testBackends } from "../support/databases.ts";
import { rawRequest } from "../support/fixtures.ts";
import { type ApiResponse, startTestServer, type TestServer } from "../support/harness.ts";
import { type PortalClient, type PortalPage, signedIn } from "../support/portal.ts";

const API_KEY = "k-secret-1234";
const HMAC_KEY = "5f2b8c0d1e3a4b6c7d8e9f00112233445566778899aabbccddeeff0011223344";

/** The terminal's block on the page: from its data-terminal attribute to the next terminal's. */
function terminalBlock(page: PortalPage, terminalIdentifier: string): string {
  const start = page.html.indexOf(`data-terminal="${terminalIdentifier}"`);
  assert.ok(start >= 0, `terminal ${terminalIdentifier} is on the page`);
  const next = page.html.indexOf("data-terminal=", start + 1);
  const end = page.html.indexOf("</section>", start);
  return page.html.slice(start, next >= 0 && next < end ? next : end);
}

for (const backend of testBackends()) {
  describe(`portal developers: terminals' processors (${backend.name})`, () => {
    let server: TestServer;
    let portal: PortalClient;
    let gatewayTerminal: string;
    before(async () => {
      server = await startTestServer({ backend });
      portal = await signedIn(server);
      const created = await admin("POST", `/merchants/${server.merchantId}/terminals`, { name: "Web shop" });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      gatewayTerminal = created.body.terminalIdentifier;
      const put = await admin("PUT", `/merchants/${server.merchantId}/terminals/${gatewayTerminal}/processor`, {
        processor: { type: "straumur", environment: "test", apiKey: API_KEY, terminalIdentifier: "abcdef123456", hmacKey: HMAC_KEY },
      });
      assert.equal(put.status, 200, JSON.stringify(put.body));
    });
    after(() => server?.close());

    const admin = (method: string, path: string, body?: unknown): Promise<ApiResponse> =>
      rawRequest({ baseUrl: server.baseUrl }, method, `/admin/v1${path}`, {
        body: body === undefined ? undefined : JSON.stringify(body),
        contentType: body === undefined ? null : "application/json",
        headers: { authorization: `Bearer ${server.adminToken}` },
      });

    const assertNoSecret = (page: PortalPage) => {
      // Not even masked: the portal cannot replace a secret, so its last characters are left out.
      for (const secret of [API_KEY, HMAC_KEY, `••••${API_KEY.slice(-4)}`, `••••${HMAC_KEY.slice(-4)}`, "••••"]) {
        assert.ok(!page.html.includes(secret), `the page holds ${secret}`);
      }
    };

    test("a straumur terminal shows its processor, environment, gateway terminal and webhook address to copy; no secret", async () => {
      const page = await portal.get("/portal/developers?lang=en");
      assert.equal(page.status, 200);
      assertNoSecret(page);
      const webhookUrl = `${server.baseUrl}/processors/${gatewayTerminal}/webhook`;
      const block = terminalBlock(page, gatewayTerminal);
      assert.match(block, /data-processor="straumur">Processor: Straumur \(live gateway\), test environment</);
      assert.match(block, /Terminal at the gateway: abcdef123456/);
      assert.ok(block.includes(`<code class="mono" data-value="true">${webhookUrl}</code>`), "the webhook address is shown");
      assert.ok(block.includes(`data-copy="${webhookUrl}"`), "with a copy button");
      assert.match(block, /Register this address as the webhook at the processor\./);
      assert.match(page.text, /As an owner you can change it; the operator can too, through the admin API\./);
      assert.doesNotMatch(block, /<form|<input|<select/, "nothing on the terminal can be changed here");
    });

    test("a sandbox terminal shows Sandbox and no webhook address", async () => {
      const page = await portal.get("/portal/developers?lang=en");
      const block = terminalBlock(page, server.terminalIdentifier);
      assert.match(block, /data-processor="sandbox">Processor: Sandbox \(test payments only\)</);
      assert.doesNotMatch(block, /\/processors\//);
      assert.doesNotMatch(block, /Register this address/);
      assert.ok(!page.html.includes(`/processors/${server.terminalIdentifier}/webhook`));
    });

    test("in Icelandic; and a viewer sees the same, with no secret either", async () => {
      const is = await portal.get("/portal/developers?lang=is");
      assertNoSecret(is);
      assert.match(terminalBlock(is, gatewayTerminal), /Færsluhirðir: Straumur \(raunveruleg greiðslugátt\), prófunarumhverfi/);
      assert.match(terminalBlock(is, gatewayTerminal), /Skráðu þessa slóð sem vefkrók hjá færsluhirðinum\./);
      assert.match(terminalBlock(is, server.terminalIdentifier), /Færsluhirðir: Sandkassi \(aðeins prófunargreiðslur\)/);
      assert.match(is.text, /Sem eigandi getur þú breytt honum/);
      await portal.get("/portal/developers?lang=en");

      const viewer = await signedIn(server, server, "viewer@example.com", "viewer");
      const page = await viewer.get("/portal/developers?lang=en");
      assert.equal(page.status, 200, "every role reads the Developers page");
      assertNoSecret(page);
      assert.match(terminalBlock(page, gatewayTerminal), /Straumur \(live gateway\)/);
    });
  });
}
