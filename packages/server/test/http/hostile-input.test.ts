// Issue 29's smaller findings, tried as an attacker would: a sign-in whose `next=` holds what a
// Location header cannot carry, a cross-site sign-in post, `https://localhost./` as a webhook,
// invalid UTF-8 inside a JSON string, and X-Forwarded-For without a trusted proxy.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, describe, test } from "node:test";
import { createLogger } from "../../src/logging.ts";
import { checkWebhookUrl } from "../../src/net/outbound-guard.ts";
import { testBackends } from "../support/databases.ts";
import { assertEnvelope, payByLink, rowCount } from "../support/fixtures.ts";
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from "../support/harness.ts";
import { addPortalUser, PORTAL_PASSWORD, PortalClient } from "../support/portal.ts";

for (const backend of testBackends()) {
  describe(`hostile input (${backend.name})`, () => {
    let server: TestServer;
    const written: string[] = [];
    before(async () => {
      const stream = new Writable({
        write(chunk, _encoding, done) {
          written.push(String(chunk));
          done();
        },
      });
      server = await startTestServer({ backend, logger: createLogger("warn", stream) });
      await addPortalUser(server, server, "next@example.com");
    });
    after(async () => server?.close());

    test("a next= outside printable ASCII (ā, NUL, U+2028) signs in to the overview, with its cookie", async () => {
      for (const next of ["/portal/ā", "/portal/a\u0000b", "/portal/a\u2028b"]) {
        const client = new PortalClient(server.baseUrl);
        const form = await client.get(`/portal/sign-in?next=${encodeURIComponent(next)}`);
        assert.equal(form.status, 200);
        const sessionsBefore = await rowCount(server, "portal_sessions");
        const signedIn = await client.post("/portal/sign-in", { email: "next@example.com", password: PORTAL_PASSWORD, next }, form);
        assert.equal(signedIn.status, 303, `${JSON.stringify(next)}: ${signedIn.status}`);
        assert.equal(signedIn.location, "/portal/overview");
        assert.ok(client.cookies.has("paylink_session"), "the session's cookie was set");
        assert.equal(await rowCount(server, "portal_sessions"), sessionsBefore + 1);
        assert.equal((await client.get("/portal/overview")).status, 200);
      }
    });

    test("a sign-in posted from another site is refused like every other portal form: 403, nothing counted", async () => {
      const failuresBefore = await rowCount(server, "portal_signin_failures");
      const crossSite: Record<string, string>[] = [{ origin: "https://evil.example" }, { "sec-fetch-site": "cross-site" }];
      for (const headers of crossSite) {
        const client = new PortalClient(server.baseUrl, headers);
        const form = await client.get("/portal/sign-in");
        const posted = await client.post("/portal/sign-in", { email: "next@example.com", password: PORTAL_PASSWORD }, form);
        assert.equal(posted.status, 403, JSON.stringify(headers));
        assert.ok(!client.cookies.has("paylink_session"));
      }
      assert.equal(await rowCount(server, "portal_signin_failures"), failuresBefore);
    });

    test("https://localhost./ is refused as a webhook URL when it is created", async () => {
      assert.match(checkWebhookUrl("https://localhost./hook", false)!, /private/);
      assert.match(checkWebhookUrl("https://shop.localhost../hook", false)!, /private/);
      const response = await fetch(`${server.baseUrl}/admin/v1/merchants/${server.merchantId}/webhooks`, {
        method: "POST",
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ url: "https://localhost./hook" }),
      });
      assert.equal(response.status, 400);
    });

    test("invalid UTF-8 inside a JSON string is refused (400 in the envelope), not stored as U+FFFD", async () => {
      const linksBefore = await rowCount(server, "payment_links");
      const json = JSON.stringify(payByLink(server, { description: "MARKER" }));
      const [head, tail] = json.split("MARKER") as [string, string];
      const body = Buffer.concat([Buffer.from(head), Buffer.from([0x41, 0xff, 0xfe, 0x42]), Buffer.from(tail)]);
      const response = await fetch(`${server.baseUrl}/api/v1/paymentlinks/create`, {
        method: "POST",
        headers: { "x-api-key": server.apiKey, "content-type": "application/json" },
        body,
      });
      assert.equal(response.status, 400);
      const answer = (await response.json()) as any;
      assertEnvelope(answer);
      assert.match(answer.errorMessage, /UTF-8/);
      assert.equal(await rowCount(server, "payment_links"), linksBefore);
      // Valid multi-byte text still passes.
      const ok = await server.api("POST", "/api/v1/paymentlinks/create", payByLink(server, { description: "Lopapeysa — þæö" }));
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
    });

    test("X-Forwarded-For without a trusted proxy is warned of once", async () => {
      for (let i = 0; i < 3; i++) await fetch(`${server.baseUrl}/healthz`, { headers: { "x-forwarded-for": "203.0.113.9" } });
      const warnings = written.filter((line) => line.includes("PAYLINK_TRUST_PROXY is not set"));
      assert.equal(warnings.length, 1);
    });
  });
}
