// Refunds and reversals (docs/api.md#refund, #reverse) on every backend: partial refunds up to the
// payment and not beyond, reversal of what is left, one Refund webhook per success, retries that
// never refund twice, other merchants kept out, and refunds whose answer is lost settled later.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { findPayment } from "../../src/db/payments-repository.ts";
import { refundsOf } from "../../src/db/refunds-repository.ts";
import type { ModificationRequest, ModificationResult } from "../../src/payments/processor.ts";
import { SandboxProcessor } from "../../src/payments/sandbox.ts";
import { reconcileAfterSale } from "../../src/services/reconcile-after-sale.ts";
import { settleModification } from "../../src/services/settle-modification.ts";
import { afterSaleDeps, charge, refund, saveCard, sellLink } from "../support/after-sale.ts";
import { testBackends } from "../support/databases.ts";
import { as, assertError, assertOk, getLink } from "../support/fixtures.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { addWebhookEndpoint, outboxMessages } from "../support/outbox.ts";

/** The sandbox, except that refunds can be made to lose their answer (the processor's outcome unknown). */
class FlakyRefunds extends SandboxProcessor {
  loseAnswers = false;
  refuse = false;
  calls: string[] = [];
  override async refund(request: ModificationRequest): Promise<ModificationResult> {
    this.calls.push(request.modificationReference);
    if (this.loseAnswers) throw new Error("socket hang up");
    if (this.refuse) return { accepted: false, reason: "Refund not allowed" };
    return super.refund(request);
  }
}

for (const backend of testBackends()) {
  describe(`refunds and reversals (${backend.name})`, () => {
    let server: TestServer;
    const processor = new FlakyRefunds();

    before(async () => {
      server = await startTestServer({ backend, afterSaleProcessor: processor });
      await addWebhookEndpoint(server);
    });
    after(() => server?.close());

    const refundEvents = async (payfacReference: string) =>
      (await outboxMessages(server)).filter(
        (m) => m.eventType === "Refund" && m.payload.additionalData.originalPayfacReference === payfacReference,
      );
    const read = async (payfacReference: string) => {
      const response = await server.api("GET", `/api/v1/payments/${payfacReference}`);
      assertOk(response);
      return response.body.payment;
    };

    it("two partial refunds summing to the amount succeed, a third is 400 2019 naming what is left; one Refund webhook each", async () => {
      const { payfacReference, linkReference } = await sellLink(server, 48900);
      const first = await refund(server, payfacReference, 30000);
      const second = await refund(server, payfacReference, 18900);
      for (const response of [first, second]) {
        assertOk(response);
        assert.equal(response.body.status, "Received");
        assert.equal(response.body.originalPayfacReference, payfacReference);
        assert.match(response.body.payfacReference, /^[0-9A-Z]{16}$/);
      }
      assert.notEqual(first.body.payfacReference, second.body.payfacReference);
      assertError(await refund(server, payfacReference, 100), 400, "2019", "left to refund");
      assert.match(
        (await refund(server, payfacReference, 100)).body.errorMessage,
        /^amount ISK 1 is more than what is left to refund of payment [0-9A-Z]{16}: ISK 0\.$/,
      );

      const events = await refundEvents(payfacReference);
      assert.deepEqual(
        events.map((e) => [e.payload.payfacReference, e.payload.amount, e.payload.success, e.payload.reason]).sort(),
        [
          [first.body.payfacReference, "30000", "true", ""],
          [second.body.payfacReference, "18900", "true", ""],
        ].sort(),
      );
      for (const event of events) {
        assert.equal(event.payload.merchantReference, linkReference, "merchantReference of the original payment");
        assert.ok(event.payload.checkoutReference, "checkoutReference of the original payment");
      }
      const payment = await read(payfacReference);
      assert.equal(payment.refundedAmount, 48900);
      assert.deepEqual(
        payment.refunds.map((r: any) => [r.amount, r.status, r.type, r.reason]),
        [
          [30000, "Succeeded", "Refund", "RETURN"],
          [18900, "Succeeded", "Refund", "RETURN"],
        ],
      );
      const link = await getLink(server, linkReference);
      assert.equal(link.submissions[0].refundedAmount, 48900);
      assert.equal(link.submissions[0].payfacReference, payfacReference);
      assert.equal(link.salesCount, 1, "a refund does not lower salesCount");
    });

    it("reverse of a half-refunded payment refunds the other half; a second reverse is 409 3003", async () => {
      const { payfacReference } = await sellLink(server, 50000);
      assertOk(await refund(server, payfacReference, 25000));
      const reversed = await server.api("POST", "/api/v1/modification/reverse", { payfacReference, reference: "cancel-1" });
      assertOk(reversed);
      assert.equal(reversed.body.status, "Received");
      const payment = await read(payfacReference);
      assert.equal(payment.refundedAmount, 50000);
      assert.deepEqual(
        payment.refunds.map((r: any) => [r.type, r.amount, r.reference]),
        [
          ["Refund", 25000, null],
          ["Reversal", 25000, "cancel-1"],
        ],
      );
      const events = await refundEvents(payfacReference);
      assert.equal(events.length, 2);
      const reversal = events.find((e) => e.payload.payfacReference === reversed.body.payfacReference)!;
      assert.equal(reversal.payload.amount, "25000");
      assert.equal(reversal.payload.additionalData.eventType, "Refund");
      assertError(await server.api("POST", "/api/v1/modification/reverse", { payfacReference }), 409, "3003");
    });

    it("a token payment is refunded and reversed the same way, in its own currency only", async () => {
      const token = await saveCard(server);
      const paid = await charge(server, token, { amount: 20000 });
      assertOk(paid);
      const { payfacReference } = paid.body;
      assertError(await refund(server, payfacReference, 5000, {}, "EUR"), 400, "2008", "ISK");
      assertOk(await refund(server, payfacReference, 5000, {}, "isk"));
      assertOk(await server.api("POST", "/api/v1/modification/reverse", { PayfacReference: payfacReference }));
      const payment = await read(payfacReference);
      assert.equal(payment.refundedAmount, 20000);
      const events = await refundEvents(payfacReference);
      assert.equal(events.length, 2);
      assert.ok(
        events.every((e) => e.payload.merchantReference === "order-1043" && e.payload.checkoutReference === paid.body.checkoutReference),
      );
    });

    it("a retried refund (same Idempotency-Key) replays and never refunds twice", async () => {
      const { payfacReference } = await sellLink(server, 40000);
      const headers = { "idempotency-key": `refund-${backend.name}-1` };
      const first = await refund(server, payfacReference, 40000, headers);
      const retry = await refund(server, payfacReference, 40000, headers);
      assertOk(first);
      assert.equal(retry.status, 200);
      assert.equal(retry.headers.get("idempotent-replayed"), "true");
      assert.equal(retry.body.payfacReference, first.body.payfacReference);
      assert.equal((await read(payfacReference)).refunds.length, 1);
      assert.equal((await refundEvents(payfacReference)).length, 1);
    });

    it("another merchant's payment is 404 2014 to refund, reverse and read; refused or unknown payments cannot be refunded", async () => {
      const { payfacReference } = await sellLink(server, 10000);
      const other = await server.addMerchant();
      assertError(await refund(server, payfacReference, 100, as(other)), 404, "2014");
      assertError(await server.api("POST", "/api/v1/modification/reverse", { payfacReference }, as(other)), 404, "2014");
      assertError(await server.api("GET", `/api/v1/payments/${payfacReference}`, undefined, as(other)), 404, "2014");
      assertError(await refund(server, "NOSUCHPAYMENT000", 100), 404, "2014");
      const token = await saveCard(server, "4000000000000341");
      const refused = await charge(server, token);
      assert.equal(refused.body.resultCode, "Refused");
      assertError(await refund(server, refused.body.payfacReference, 100), 409, "3003", "not authorised");
      assertError(await refund(server, payfacReference, 0), 400, "2002");
      assertError(await refund(server, payfacReference, 10100), 400, "2019");
      const rows = await server.db
        .selectFrom("refunds")
        .select("payfac_reference")
        .where("original_payfac_reference", "=", payfacReference)
        .execute();
      assert.equal(rows.length, 0, "no refused request recorded a refund");
    });

    it("an ISK refund that is not whole krónur (1 or 99 hundredths) is 400 2026, like a charge or a link; nothing is reserved", async () => {
      const { payfacReference } = await sellLink(server, 10000);
      const asked = processor.calls.length;
      for (const amount of [1, 99, 150]) {
        assertError(await refund(server, payfacReference, amount), 400, "2026", "must end in 00");
      }
      assert.equal(processor.calls.length, asked, "the processor was not asked");
      const rows = await server.db
        .selectFrom("refunds")
        .select("payfac_reference")
        .where("original_payfac_reference", "=", payfacReference)
        .execute();
      assert.equal(rows.length, 0, "no refund recorded");
      assertOk(await refund(server, payfacReference, 10000));
      assert.equal((await read(payfacReference)).refundedAmount, 10000, "all of it can still be refunded in whole krónur");
    });

    it("a refund the processor refuses is Failed, its amount released, and its Refund webhook says so", async () => {
      const { payfacReference } = await sellLink(server, 20000);
      processor.refuse = true;
      const refused = await refund(server, payfacReference, 20000);
      processor.refuse = false;
      assertOk(refused);
      assert.equal(refused.body.status, "Received");
      const payment = await read(payfacReference);
      assert.equal(payment.refundedAmount, 0);
      assert.deepEqual([payment.refunds[0].status, payment.refunds[0].reason], ["Failed", "Refund not allowed"]);
      const [event] = await refundEvents(payfacReference);
      assert.deepEqual([event!.payload.success, event!.payload.reason], ["false", "Refund not allowed"]);
      assertOk(await refund(server, payfacReference, 20000));
      assert.equal((await read(payfacReference)).refundedAmount, 20000, "the released amount can be refunded again");
    });

    it("a refund whose answer is lost stays reserved (Pending, no webhook), is not refunded twice, and the reconciler settles it", async () => {
      const { payfacReference } = await sellLink(server, 30000);
      processor.loseAnswers = true;
      const lost = await refund(server, payfacReference, 30000);
      processor.loseAnswers = false;
      assertOk(lost);
      assert.equal(lost.body.status, "Received", "received, not reported as refunded");
      let payment = await read(payfacReference);
      assert.equal(payment.refundedAmount, 0);
      assert.equal(payment.refunds[0].status, "Pending");
      assert.equal((await refundEvents(payfacReference)).length, 0);
      assertError(await refund(server, payfacReference, 100), 400, "2019", "held by refunds still being processed");
      assert.match(
        (await refund(server, payfacReference, 100)).body.errorMessage,
        /^amount ISK 1 is more than what is left to refund of payment [0-9A-Z]{16}: ISK 0 \(ISK 300 more is held by refunds still being processed\)\.$/,
      );

      // Not due yet: the sweep leaves it to the request's own retry window.
      assert.equal((await reconcileAfterSale(afterSaleDeps(server, processor))).refundsSettled, 0);
      await sql`UPDATE refunds SET next_attempt_at = now() WHERE payfac_reference = ${lost.body.payfacReference}`.execute(server.db);
      const sweep = await reconcileAfterSale(afterSaleDeps(server, processor));
      assert.ok(sweep.refundsSettled >= 1);
      payment = await read(payfacReference);
      assert.equal(payment.refundedAmount, 30000);
      assert.equal(payment.refunds[0].status, "Succeeded");
      assert.equal(processor.calls.filter((c) => c === lost.body.payfacReference).length, 2, "asked again with the same reference");
      const events = await refundEvents(payfacReference);
      assert.equal(events.length, 1);
      assert.equal(events[0]!.payload.payfacReference, lost.body.payfacReference);
    });

    it("a pending refund settled by a later result (as a processor notification would) writes one webhook; a second result changes nothing", async () => {
      const { payfacReference } = await sellLink(server, 70000);
      processor.loseAnswers = true;
      const lost = await refund(server, payfacReference, 70000);
      processor.loseAnswers = false;
      assertOk(lost);
      const payment = (await findPayment(server.db, server.merchantId, payfacReference))!;
      const [pending] = await refundsOf(server.db, server.merchantId, payfacReference);
      assert.equal(pending!.state, "pending");
      const deps = afterSaleDeps(server, processor);
      const refused = await settleModification(deps, payment, pending!, { kind: "failed", reason: "Refund not allowed" });
      assert.equal(refused?.state, "failed");
      assert.equal(await settleModification(deps, payment, pending!, { kind: "succeeded" }), undefined, "settled once only");
      const read = await server.api("GET", `/api/v1/payments/${payfacReference}`);
      assert.equal(read.body.payment.refundedAmount, 0, "the refused amount is released");
      assert.deepEqual(
        (await refundEvents(payfacReference)).map((e) => [e.payload.success, e.payload.reason]),
        [["false", "Refund not allowed"]],
      );
      assertOk(await refund(server, payfacReference, 70000));
    });
  });
}
