// Captures whose processor answer is lost or refused (docs/api.md#capture-and-adjust), on every
// backend: a lost answer is never reported as captured — the amount stays reserved (status
// Unknown, no webhook, a reversal waits) until the reconciler asks again by the same reference and
// writes the Capture webhook; a refusal releases the amount and says so in its webhook.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import type { ModificationRequest, ModificationResult } from "../../src/payments/processor.ts";
import { SandboxProcessor } from "../../src/payments/sandbox.ts";
import { reconcileAfterSale } from "../../src/services/reconcile-after-sale.ts";
import { afterSaleDeps } from "../support/after-sale.ts";
import { adjust, capture, paidSession, readPayment, reverse } from "../support/capture.ts";
import { testBackends } from "../support/databases.ts";
import { assertError, assertOk } from "../support/fixtures.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { addWebhookEndpoint, outboxMessages } from "../support/outbox.ts";

/** The sandbox, except that captures and adjustments can lose their answer or be refused. */
class FlakyCaptures extends SandboxProcessor {
  loseAnswers = false;
  refuse = false;
  calls: string[] = [];
  override async capture(request: ModificationRequest): Promise<ModificationResult> {
    this.calls.push(request.modificationReference);
    if (this.loseAnswers) throw new Error("socket hang up");
    if (this.refuse) return { accepted: false, reason: "Capture not allowed" };
    return super.capture(request);
  }
  override async adjustAuthorisation(request: ModificationRequest): Promise<ModificationResult> {
    this.calls.push(request.modificationReference);
    if (this.loseAnswers) throw new Error("socket hang up");
    return super.adjustAuthorisation(request);
  }
}

for (const backend of testBackends()) {
  describe(`capture outcomes (${backend.name})`, () => {
    let server: TestServer;
    const processor = new FlakyCaptures();

    before(async () => {
      server = await startTestServer({ backend, afterSaleProcessor: processor });
      await addWebhookEndpoint(server);
    });
    after(() => server?.close());

    const eventsOf = async (payfacReference: string, eventType: string) =>
      (await outboxMessages(server)).filter(
        (m) => m.eventType === eventType && m.payload.additionalData.originalPayfacReference === payfacReference,
      );
    const sweep = () => reconcileAfterSale(afterSaleDeps(server, processor));

    it("a capture whose answer is lost stays reserved (Unknown, no webhook), blocks a reversal, and the reconciler settles it", async () => {
      const { payfacReference } = await paidSession(server, { reference: "lost-1", isManualCapture: true });
      processor.loseAnswers = true;
      const lost = await capture(server, payfacReference, 400000);
      processor.loseAnswers = false;
      assertOk(lost);
      assert.equal(lost.body.status, "Received", "received, not reported as captured");
      let payment = await readPayment(server, payfacReference);
      assert.equal(payment.capturedAmount, 0);
      assert.equal(payment.captures[0].status, "Unknown");
      assert.equal((await eventsOf(payfacReference, "Capture")).length, 0);
      // The reserved amount counts: only 89000 is left, and no reversal while the capture is open.
      assertError(await capture(server, payfacReference, 89100), 400, "2019", "held by captures still being processed");
      assertError(await reverse(server, payfacReference), 409, "3003");

      // Not due yet: the sweep leaves it to the request's own retry window.
      assert.equal((await sweep()).capturesSettled, 0);
      await sql`UPDATE captures SET next_attempt_at = now() WHERE payfac_reference = ${lost.body.payfacReference}`.execute(server.db);
      assert.ok((await sweep()).capturesSettled >= 1);
      payment = await readPayment(server, payfacReference);
      assert.equal(payment.capturedAmount, 400000);
      assert.equal(payment.captures[0].status, "Approved");
      assert.equal(processor.calls.filter((c) => c === lost.body.payfacReference).length, 2, "asked again with the same reference");
      const events = await eventsOf(payfacReference, "Capture");
      assert.deepEqual(
        events.map((m) => [m.payload.payfacReference, m.payload.amount, m.payload.success]),
        [[lost.body.payfacReference, "400000", "true"]],
      );
    });

    it("a capture the processor refuses is Declined, its amount released, and its Capture webhook says so", async () => {
      const { payfacReference } = await paidSession(server, { reference: "refused-1", isManualCapture: true });
      processor.refuse = true;
      const refused = await capture(server, payfacReference, 489000);
      processor.refuse = false;
      assertOk(refused);
      const payment = await readPayment(server, payfacReference);
      assert.deepEqual([payment.capturedAmount, payment.captures[0].status], [0, "Declined"]);
      const [event] = await eventsOf(payfacReference, "Capture");
      assert.deepEqual([event!.payload.success, event!.payload.reason], ["false", "Capture not allowed"]);
      assertOk(await capture(server, payfacReference, 489000));
      assert.equal((await readPayment(server, payfacReference)).capturedAmount, 489000, "the released amount can be captured again");
    });

    it("an adjustment whose answer is lost blocks captures until the reconciler settles it", async () => {
      const { payfacReference } = await paidSession(server, { reference: "lost-2", isManualCapture: true, isPreAuth: true });
      processor.loseAnswers = true;
      const lost = await adjust(server, payfacReference, 300000);
      processor.loseAnswers = false;
      assertOk(lost);
      assertError(await capture(server, payfacReference, 1000), 409, "3003", "being adjusted");
      await sql`UPDATE captures SET next_attempt_at = now() WHERE payfac_reference = ${lost.body.payfacReference}`.execute(server.db);
      await sweep();
      assert.equal((await readPayment(server, payfacReference)).amount, 300000);
      assert.equal((await eventsOf(payfacReference, "Adjustment")).length, 1);
      assertError(await capture(server, payfacReference, 300100), 400, "2019");
      assertOk(await capture(server, payfacReference, 300000));
    });

    it("a capture retried with the same Idempotency-Key captures once", async () => {
      const { payfacReference } = await paidSession(server, { reference: "idem-1", isManualCapture: true });
      const key = { "idempotency-key": `capture-idem-1-${backend.name}` };
      const body = { reference: "idem-1", payfacReference, amount: 100000, currency: "ISK" };
      const first = await server.api("POST", "/api/v1/modification/capture", body, key);
      const again = await server.api("POST", "/api/v1/modification/capture", body, key);
      assertOk(first);
      assert.equal(again.status, 200);
      assert.equal(again.body.payfacReference, first.body.payfacReference);
      assert.equal((await readPayment(server, payfacReference)).capturedAmount, 100000);
    });
  });
}
