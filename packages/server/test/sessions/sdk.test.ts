// The SDK's session methods (createSession, getSessionStatus, capture, adjust) against the real server on every
// backend: a session made with the SDK is paid on its page and reads Completed; a missing one is a
// PaylinkApiError with the server's code.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { PaylinkApiError, PaylinkClient } from "paylink-sdk";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { paySession } from "../support/sessions.ts";

for (const backend of testBackends()) {
  describe(`SDK session methods against the server (${backend.name})`, () => {
    let server: TestServer;
    let paylink: PaylinkClient;

    before(async () => {
      server = await startTestServer({ backend });
      paylink = new PaylinkClient({ baseUrl: server.baseUrl, apiKey: server.apiKey });
    });
    after(() => server.close());

    it("creates a session, which the shopper pays, and reads its status", async () => {
      const created = await paylink.createSession(
        {
          amount: "259000",
          currency: "ISK",
          reference: "sdk-order-1",
          terminalIdentifier: server.terminalIdentifier,
          returnUrl: "https://shop.example/return",
          items: [{ name: "Trefill", amount: 259000 }],
        },
        { idempotencyKey: `sdk-order-1-${backend.name}` },
      );
      assert.match(created.checkoutReference, /^[a-z0-9]{50}$/);
      assert.deepEqual(await paylink.getSessionStatus(created.checkoutReference).then((s) => [s.status, s.payfacReference]), ["New", null]);
      assert.equal((await paySession(server.baseUrl, created.checkoutReference)).status, 303);
      const status = await paylink.getSessionStatus(created.checkoutReference);
      assert.equal(status.status, "Completed");
      const payment = await paylink.getPayment(status.payfacReference!);
      assert.equal(payment.merchantReference, "sdk-order-1");
      assert.equal(payment.checkoutReference, created.checkoutReference);
    });

    it("captures a manual-capture session's payment in parts and adjusts a pre-authorisation", async () => {
      const created = await paylink.createSession({
        amount: 259000,
        currency: "ISK",
        reference: "sdk-order-2",
        terminalIdentifier: server.terminalIdentifier,
        returnUrl: "https://shop.example/return",
        isManualCapture: true,
        isPreAuth: true,
      });
      assert.equal((await paySession(server.baseUrl, created.checkoutReference)).status, 303);
      const { payfacReference } = await paylink.getSessionStatus(created.checkoutReference);
      const adjusted = await paylink.adjust({
        reference: "sdk-order-2",
        payfacReference: payfacReference!,
        amount: 300000,
        currency: "ISK",
      });
      assert.equal(adjusted.status, "Received");
      const first = await paylink.capture(
        { reference: "sdk-order-2", payfacReference: payfacReference!, amount: "100000", currency: "ISK" },
        { idempotencyKey: `sdk-capture-1-${backend.name}` },
      );
      assert.equal(first.status, "Received");
      assert.notEqual(first.payfacReference, payfacReference);
      await assert.rejects(
        paylink.capture({ payfacReference: payfacReference!, amount: 200100, currency: "ISK" }),
        (error: unknown) => error instanceof PaylinkApiError && `${error.status} ${error.errorCode}` === "400 2019",
      );
      const payment = await paylink.getPayment(payfacReference!);
      assert.deepEqual([payment.amount, payment.isManualCapture, payment.capturedAmount], [300000, true, 100000]);
      assert.deepEqual(
        payment.captures?.map((c) => [c.payfacReference, c.amount, c.status]),
        [[first.payfacReference, 100000, "Approved"]],
      );
    });

    it("rejects an unknown session with 404 2014", async () => {
      await assert.rejects(paylink.getSessionStatus("nosuchsession"), (error: unknown) => {
        assert.ok(error instanceof PaylinkApiError);
        assert.equal(`${error.status} ${error.errorCode}`, "404 2014");
        return true;
      });
    });
  });
}
