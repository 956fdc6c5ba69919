// The API reference's session examples are true: the WooCommerce and Adobe Commerce bodies create
// sessions answered as the example shows, the status reads as shown, and the error examples are
// the server's own errors.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ADJUST, ADOBE_COMMERCE_SESSION, CAPTURE, SESSION_ERRORS, WOOCOMMERCE_SESSION } from "../../src/api/openapi-examples-sessions.ts";
import { paidSession } from "../support/capture.ts";
import { testBackends } from "../support/databases.ts";
import { assertError, assertOk } from "../support/fixtures.ts";
import { assertSameShape, documentedServer } from "../support/openapi-examples.ts";

for (const backend of testBackends()) {
  describe(`the API reference's session examples are true (${backend.name})`, () => {
    const served = documentedServer(backend);
    const { example, request } = served;

    it("create and status, as the examples show", async () => {
      const { server } = served;
      assert.deepEqual(request("post", "/hostedcheckout", "wooCommerce"), WOOCOMMERCE_SESSION);
      assert.deepEqual(request("post", "/hostedcheckout", "adobeCommerce"), ADOBE_COMMERCE_SESSION);
      const soon = new Date(Date.now() + 5 * 60_000).toISOString();
      for (const body of [{ ...WOOCOMMERCE_SESSION, expiresAt: soon }, ADOBE_COMMERCE_SESSION]) {
        const created = await server.api("POST", "/api/v1/hostedcheckout", { ...body, terminalIdentifier: server.terminalIdentifier });
        assertOk(created);
        assertSameShape(example("post", "/hostedcheckout", 200, "created"), created.body);
        const status = await server.api("GET", `/api/v1/hostedcheckout/status/${created.body.checkoutReference}`);
        assertOk(status);
        assertSameShape(example("get", "/hostedcheckout/status/{checkoutReference}", 200, "new"), status.body);
        assert.equal(status.body.payfacReference, null);
      }
      const tooLate = "2026-03-16T15:41:12Z";
      const refused = await server.api("POST", "/api/v1/hostedcheckout", {
        ...WOOCOMMERCE_SESSION,
        terminalIdentifier: server.terminalIdentifier,
        expiresAt: new Date(Date.now() + 30 * 3_600_000).toISOString(),
      });
      assertError(refused, 400, "2009");
      assert.equal(
        refused.body.errorMessage.replace(/"[^"]+"/, `"${tooLate}"`),
        SESSION_ERRORS.tooLate.errorMessage,
        "the example's message is the server's",
      );
      const missing = await server.api("GET", "/api/v1/hostedcheckout/status/k3v9q2m7x1p8r4t6w0z5a2b7c9d1e3f5g8h0j2l4n6p8r1s3u5");
      assertError(missing, 404, "2014");
      assert.equal(missing.body.errorMessage, SESSION_ERRORS.notFound.errorMessage);
      const noCard = await server.api("POST", "/api/v1/payment/disable-token", request("post", "/payment/disable-token", "disable"));
      assertError(noCard, 404, "2014");
      assert.equal(noCard.body.errorMessage, SESSION_ERRORS.tokenNotFound.errorMessage);
    });

    it("capture and adjust, as the examples show", async () => {
      const { server } = served;
      assert.deepEqual(request("post", "/modification/capture", "partial"), CAPTURE);
      assert.deepEqual(request("post", "/modification/adjust", "newTotal"), ADJUST);
      const withReference = (message: string, payfacReference: string) => message.replaceAll(CAPTURE.payfacReference, payfacReference);
      const manual = await paidSession(server, { reference: "1042", isManualCapture: true, isPreAuth: true });
      const adjusted = await server.api("POST", "/api/v1/modification/adjust", {
        ...ADJUST,
        payfacReference: manual.payfacReference,
        amount: 489000,
      });
      assertOk(adjusted);
      assertSameShape(example("post", "/modification/adjust", 200, "received"), adjusted.body);
      const captured = await server.api("POST", "/api/v1/modification/capture", { ...CAPTURE, payfacReference: manual.payfacReference });
      assertOk(captured);
      assertSameShape(example("post", "/modification/capture", 200, "received"), captured.body);
      const tooHigh = await server.api("POST", "/api/v1/modification/capture", {
        ...CAPTURE,
        payfacReference: manual.payfacReference,
        amount: 300000,
      });
      assertError(tooHigh, 400, "2019");
      assert.equal(tooHigh.body.errorMessage, withReference(SESSION_ERRORS.captureTooHigh.errorMessage, manual.payfacReference));
      const automatic = await paidSession(server, { reference: "1043" });
      const refused = await server.api("POST", "/api/v1/modification/capture", { ...CAPTURE, payfacReference: automatic.payfacReference });
      assertError(refused, 409, "3003");
      assert.equal(refused.body.errorMessage, withReference(SESSION_ERRORS.notManualCapture.errorMessage, automatic.payfacReference));
    });
  });
}
