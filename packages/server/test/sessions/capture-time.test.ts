// Time and manual capture (docs/api.md#capture-and-adjust), on a server whose clock the test moves
// (no sleeping for days): an uncaptured manual authorisation lapses 7 days after it was made, and
// a captureHoursDelay payment is captured by the processor that many hours after authorisation,
// with no Capture webhook.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { capture, paidSession, readPayment, reverse } from "../support/capture.ts";
import { testBackends } from "../support/databases.ts";
import { assertError, assertOk } from "../support/fixtures.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { addWebhookEndpoint, outboxMessages } from "../support/outbox.ts";

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

for (const backend of testBackends()) {
  describe(`manual capture over time (${backend.name})`, () => {
    let server: TestServer;
    let clock = Date.now();

    before(async () => {
      server = await startTestServer({ backend, now: () => new Date(clock) });
      await addWebhookEndpoint(server);
    });
    beforeEach(() => {
      clock = Date.now();
    });
    after(async () => {
      await server?.close();
    });

    const refund = (payfacReference: string, amount: number) =>
      server.api("POST", "/api/v1/modification/refund", { payfacReference, amount, currency: "ISK" });

    it("an uncaptured authorisation can be captured until 7 days have passed, then it has lapsed (409 3003)", async () => {
      const { payfacReference } = await paidSession(server, { reference: "lapse-1", isManualCapture: true });
      clock += 7 * DAY - HOUR;
      assertOk(await capture(server, payfacReference, 100000));
      clock += 2 * HOUR;
      assertError(await capture(server, payfacReference, 100000), 409, "3003", "lapsed");
      // What was captured stays captured and refundable; reversing gives back only that.
      const read = await readPayment(server, payfacReference);
      assert.equal(read.capturedAmount, 100000);
      const reversed = await reverse(server, payfacReference);
      assertOk(reversed);
      const refunds = (await outboxMessages(server)).filter(
        (m) => m.eventType === "Refund" && m.payload.additionalData.originalPayfacReference === payfacReference,
      );
      assert.deepEqual(
        refunds.map((m) => m.payload.amount),
        ["100000"],
      );
    });

    it("a lapsed authorisation never captured has nothing to capture, refund or reverse", async () => {
      const { payfacReference } = await paidSession(server, { reference: "lapse-2", isManualCapture: true });
      clock += 8 * DAY;
      assertError(await capture(server, payfacReference, 1000), 409, "3003", "lapsed");
      assertError(await refund(payfacReference, 1000), 409, "3003");
      assertError(await reverse(server, payfacReference), 409, "3003");
      assert.equal((await readPayment(server, payfacReference)).capturedAmount, 0);
    });

    it("captureHoursDelay: not captured before the delay (refund 409), captured in full after it, with no Capture webhook", async () => {
      const { payfacReference } = await paidSession(server, { reference: "delay-1", captureHoursDelay: 48 });
      const early = await readPayment(server, payfacReference);
      assert.deepEqual([early.isManualCapture, early.capturedAmount], [false, 0]);
      assertError(await refund(payfacReference, 10000), 409, "3003");
      // Not a manual capture: the merchant cannot capture it.
      assertError(await capture(server, payfacReference, 10000), 409, "3003");
      clock += 48 * HOUR + 1000;
      const late = await readPayment(server, payfacReference);
      assert.equal(late.capturedAmount, 489000);
      assertOk(await refund(payfacReference, 10000));
      const captures = (await outboxMessages(server)).filter(
        (m) => m.eventType === "Capture" && m.payload.additionalData.originalPayfacReference === payfacReference,
      );
      assert.equal(captures.length, 0, "no Capture webhook for an automatic capture");
      // Past the 7 days of a manual authorisation it is still captured: only manual ones lapse.
      clock += 10 * DAY;
      assert.equal((await readPayment(server, payfacReference)).capturedAmount, 489000);
    });

    it("captureHoursDelay reversed before the delay releases the authorisation: never captured afterwards", async () => {
      const { payfacReference } = await paidSession(server, { reference: "delay-2", captureHoursDelay: 1 });
      assertOk(await reverse(server, payfacReference));
      clock += 2 * HOUR;
      assert.equal((await readPayment(server, payfacReference)).capturedAmount, 0);
      assertError(await refund(payfacReference, 1000), 409, "3003");
    });

    it("captureHoursDelay is ignored with manual capture", async () => {
      const { payfacReference } = await paidSession(server, { reference: "delay-3", isManualCapture: true, captureHoursDelay: 1 });
      clock += 2 * HOUR;
      const read = await readPayment(server, payfacReference);
      assert.deepEqual([read.isManualCapture, read.capturedAmount], [true, 0]);
      assertOk(await capture(server, payfacReference, 489000));
    });
  });
}
