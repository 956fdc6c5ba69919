// Payments whose link or attempt changed while the card was at the processor
// (docs/checkout.md#sale-cap-and-payments-in-flight): a link disabled or expiring meanwhile, and an
// attempt the reconciler reversed and abandoned before its approval could be written. None of them
// becomes a sale: the approval is recorded as failed, cancelled at the processor, the shopper is
// told, and the merchant never gets `success: "true"`.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { createLogger } from "../../src/logging.ts";
import type { AuthorizeRequest, AuthorizeResult, PaymentProcessor } from "../../src/payments/processor.ts";
import { SandboxProcessor } from "../../src/payments/sandbox.ts";
import { reconcileStalePayments } from "../../src/services/reconcile-payments.ts";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { addWebhookEndpoint, outboxMessages } from "../support/outbox.ts";
import { CARDS, cardFields, createLink, getPage, hiddenInputs, postForm, textOf } from "../support/shopper.ts";

/**
 * The sandbox, whose answers can be held back after they were made: the card is charged at once,
 * and its reply reaches Paylink only when released (a slow network, a stalled instance).
 */
class HeldReplyProcessor implements PaymentProcessor {
  readonly name = "held-reply";
  readonly sandbox = new SandboxProcessor();
  readonly cancelled: string[] = [];
  calls = 0;
  private gate: Promise<void> | undefined;
  private openGate: (() => void) | undefined;
  private waiters: Array<{ count: number; resolve: () => void }> = [];

  hold() {
    this.gate = new Promise((resolve) => (this.openGate = resolve));
  }
  release() {
    this.openGate?.();
    this.gate = undefined;
  }
  /** Resolves once `count` calls have been answered by the sandbox (and are being held). */
  answered(count: number): Promise<void> {
    if (this.calls >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }
  async authorize(request: AuthorizeRequest): Promise<AuthorizeResult> {
    const result = await this.sandbox.authorize(request);
    this.calls++;
    for (const waiter of this.waiters.filter((w) => this.calls >= w.count)) waiter.resolve();
    if (this.gate) await this.gate;
    return result;
  }
  async cancel(payfacReference: string) {
    this.cancelled.push(payfacReference);
    await this.sandbox.cancel(payfacReference);
  }
  reverseAttempt(checkoutReference: string) {
    return this.sandbox.reverseAttempt(checkoutReference);
  }
}

for (const backend of testBackends()) {
  describe(`payments in flight when the link stops or the attempt was reversed (${backend.name})`, () => {
    let server: TestServer;
    const processor = new HeldReplyProcessor();
    const logLines: string[] = [];
    /** Added to the server's clock, to let a link expire while a payment is at the processor. */
    let clockOffsetMs = 0;

    before(async () => {
      const stream = new Writable({
        write(chunk, _encoding, done) {
          logLines.push(String(chunk));
          done();
        },
      });
      server = await startTestServer({
        backend,
        processor,
        logger: createLogger("info", stream),
        now: () => new Date(Date.now() + clockOffsetMs),
      });
      await addWebhookEndpoint(server);
    });
    after(() => server.close());

    /** Opens the page, posts a Visa, and resolves once the processor has charged it (reply held). */
    async function payHeld(reference: string) {
      const page = await getPage(server.baseUrl, `/pay/${reference}`);
      assert.equal(page.status, 200);
      processor.hold();
      const answered = processor.calls + 1;
      const response = postForm(server.baseUrl, reference, { ...hiddenInputs(page.html), ...cardFields(CARDS.visa) });
      await processor.answered(answered);
      const submission = await server.database.db
        .selectFrom("submissions")
        .select(["id", "state"])
        .where("link_reference", "=", reference)
        .executeTakeFirstOrThrow();
      assert.equal(submission.state, "pending");
      return { response, checkoutReference: submission.id };
    }

    async function recorded(reference: string) {
      const db = server.database.db;
      const rows = await db
        .selectFrom("submissions")
        .select(["id", "state", "completed", "reason", "payfac_reference", "cancel_pending"])
        .where("link_reference", "=", reference)
        .execute();
      const link = await db
        .selectFrom("payment_links")
        .select(["sales_count", "reserved_count"])
        .where("reference", "=", reference)
        .executeTakeFirstOrThrow();
      const messages = (await outboxMessages(server)).filter((m) => m.payload.merchantReference === reference);
      return { rows, link, messages };
    }

    /** The approval was voided: no sale, the charge cancelled, the merchant told it failed. */
    async function assertVoided(reference: string, reason: string) {
      const { rows, link, messages } = await recorded(reference);
      assert.equal(link.sales_count, 0, "no sale");
      assert.equal(link.reserved_count, 0, "no slot held");
      assert.equal(rows.length, 1);
      const [row] = rows;
      assert.deepEqual([row!.state, row!.completed, row!.reason], ["failed", false, reason]);
      assert.ok(row!.payfac_reference && processor.cancelled.includes(row!.payfac_reference), "the approval was cancelled");
      assert.equal(row!.cancel_pending, false, "the processor confirmed the cancel");
      assert.ok(messages.length > 0, "the merchant hears of the attempt");
      for (const message of messages) {
        assert.equal(message.payload.success, "false");
        assert.equal(message.payload.reason, reason);
      }
      return row!;
    }

    it("a link disabled while the card is at the processor: the approval is cancelled, no sale, the shopper is told", async () => {
      const reference = await createLink(server, { culture: "en" });
      const { response } = await payHeld(reference);
      const disabled = await server.api("POST", "/api/v1/paymentlinks/disable", { paymentLinkReference: reference });
      assert.equal(disabled.status, 200, JSON.stringify(disabled.body));
      processor.release();
      const answer = await response;
      assert.equal(answer.status, 410);
      assert.match(textOf(answer.html), /no longer available/);
      assert.match(textOf(answer.html), /Your payment was cancelled, and you have not been charged/);
      await assertVoided(reference, "Link disabled");
    });

    it("a link that expires while the card is at the processor: the approval is cancelled, no sale, the shopper is told", async () => {
      const reference = await createLink(server, { culture: "en", validUntil: new Date(Date.now() + 60 * 60_000).toISOString() });
      const { response } = await payHeld(reference);
      clockOffsetMs = 2 * 60 * 60_000;
      try {
        processor.release();
        const answer = await response;
        assert.equal(answer.status, 410);
        assert.match(textOf(answer.html), /has expired/);
        assert.match(textOf(answer.html), /Your payment was cancelled, and you have not been charged/);
      } finally {
        clockOffsetMs = 0;
      }
      await assertVoided(reference, "Link expired");
    });

    it("an approval written after the reconciler reversed and abandoned its attempt is no sale: failed, cancel owed, an alert", async () => {
      const reference = await createLink(server, { culture: "en", returnUrl: "https://shop.example/done" });
      const { response, checkoutReference } = await payHeld(reference);
      // The instance stalled longer than the reservation: another instance's sweep reverses it.
      const db = server.database.db;
      await sql`UPDATE submissions SET created_at = now() - interval '16 minutes' WHERE id = ${checkoutReference}`.execute(db);
      const silent = { warn() {}, error() {}, info() {} };
      assert.equal(await reconcileStalePayments({ db, processor, log: silent }, reference), 1);
      const linesBefore = logLines.length;
      processor.release();
      const answer = await response;
      assert.notEqual(answer.status, 303, "not sent to the merchant's return URL as paid");
      assert.equal(answer.status, 502, "the form again, as after a processor failure");
      assert.match(textOf(answer.html), /You have not been charged/);
      const row = await assertVoided(reference, "Reversed");

      const alerts = logLines
        .slice(linesBefore)
        .map((line) => JSON.parse(line))
        .filter((entry) => entry.level >= 50 && entry.checkoutReference === checkoutReference);
      assert.equal(alerts.length, 1, "one error-level alert");
      assert.equal(alerts[0].payfacReference, row.payfac_reference);
      assert.equal(alerts[0].paymentLinkReference, reference);
      assert.ok(!logLines.some((line) => line.includes(CARDS.visa)), "no card number in the log");
    });
  });
}
