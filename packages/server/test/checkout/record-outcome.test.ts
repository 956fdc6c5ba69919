// A processor's result, recorded in one way (services/record-payment-outcome.ts): under concurrent
// payments of one link (on two app instances sharing PostgreSQL) every result has its counters,
// payfacReference and webhook rows; an approval the link no longer takes is voided with its slot
// released and its cancel owed, even when the link closes between the read and the sale; and a
// result already written is never written again.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { loadCheckoutLink } from "../../src/db/checkout-repository.ts";
import { reserveSale } from "../../src/db/reservations-repository.ts";
import { cartDigest } from "../../src/domain/links/cart.ts";
import { recordPaymentOutcome } from "../../src/services/record-payment-outcome.ts";
import { testBackends } from "../support/databases.ts";
import { startSecondInstance, startTestServer, type TestServer } from "../support/harness.ts";
import { addWebhookEndpoint, outboxMessages } from "../support/outbox.ts";
import { CARDS, cardFields, createLink, getPage, hiddenInputs, postForm } from "../support/shopper.ts";

for (const backend of testBackends()) {
  describe(`recording a payment outcome (${backend.name})`, () => {
    let server: TestServer;
    let second: TestServer | undefined;

    before(async () => {
      server = await startTestServer({ backend });
      if (backend.name === "postgres") second = await startSecondInstance(server);
      await addWebhookEndpoint(server);
      await addWebhookEndpoint(server);
    });
    after(async () => {
      await second?.close();
      await server.close();
    });

    const linkRow = (reference: string) =>
      server.database.db
        .selectFrom("payment_links")
        .select(["sales_count", "reserved_count"])
        .where("reference", "=", reference)
        .executeTakeFirstOrThrow();
    const submissionsOf = (reference: string) =>
      server.database.db.selectFrom("submissions").selectAll().where("link_reference", "=", reference).execute();

    it("concurrent payments of a link without a cap: every approval a sale, every result its reference and messages, no slot held", async () => {
      const reference = await createLink(server);
      const instances = second ? [server, second] : [server];
      const count = 24;
      const pages = await Promise.all(
        Array.from({ length: count }, (_, i) => getPage(instances[i % instances.length]!.baseUrl, `/pay/${reference}`)),
      );
      const responses = await Promise.all(
        pages.map((page, i) =>
          postForm(instances[(i + 1) % instances.length]!.baseUrl, reference, {
            ...hiddenInputs(page.html),
            ...cardFields(i % 3 === 0 ? CARDS.refused : CARDS.visa),
          }),
        ),
      );
      const statuses = responses.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 200).length, 16, statuses.join(","));
      assert.equal(statuses.filter((s) => s === 402).length, 8, statuses.join(","));

      const row = await linkRow(reference);
      assert.equal(row.sales_count, 16);
      assert.equal(row.reserved_count, 0);
      const submissions = await submissionsOf(reference);
      assert.deepEqual(submissions.map((s) => s.state).sort(), [...Array(16).fill("approved"), ...Array(8).fill("declined")]);
      const references = await server.database.db
        .selectFrom("payfac_references")
        .select(["payfac_reference", "checkout_reference"])
        .where(
          "checkout_reference",
          "in",
          submissions.map((s) => s.id),
        )
        .execute();
      assert.deepEqual(
        references.map((r) => `${r.checkout_reference}:${r.payfac_reference}`).sort(),
        submissions.map((s) => `${s.id}:${s.payfac_reference}`).sort(),
      );
      // One Authorization per result and endpoint, saying what was recorded.
      const messages = (await outboxMessages(server)).filter((m) => m.payload.merchantReference === reference);
      assert.equal(messages.length, 2 * count);
      for (const submission of submissions) {
        const own = messages.filter((m) => m.payload.checkoutReference === submission.id);
        assert.equal(own.length, 2);
        for (const message of own) {
          assert.equal(message.eventType, "Authorization");
          assert.equal(message.payload.success, String(submission.state === "approved"));
          assert.equal(message.payload.payfacReference, submission.payfac_reference);
          assert.equal(message.payload.amount, String(submission.amount));
          assert.equal(message.payload.additionalData.cardNumber, submission.card_masked);
          const reason = submission.state === "approved" ? `${submission.auth_code}:1111:${submission.card_expiry}` : "Refused";
          assert.equal(message.payload.reason, reason);
        }
      }
    });

    const CARD = { brand: "VI", masked: "411111******1111", last4: "1111", expiry: "08/2030" };
    const APPROVED = { kind: "approved" as const, authCode: "123456", token: null, cardBrand: "VI", cardUsage: "Debit" };
    /** The processor's answer as the messages read it. */
    const answer = (payfacReference: string) => ({
      approved: true as const,
      payfacReference,
      authCode: "123456",
      token: null,
      cardBrand: "VI",
      cardUsage: "Debit" as const,
      paymentMethod: "VI",
      threeDAuthenticated: false,
    });

    /** A link with a pending attempt holding one slot. */
    const reserved = async () => {
      const reference = await createLink(server);
      const shownPrice = {
        amount: 48900,
        currency: "ISK",
        cart: cartDigest([{ name: "Lopapeysa", quantity: 1, unitPrice: 48900, amountWithoutDiscount: 48900, amount: 48900 }]),
      };
      const db = server.database.db;
      const reservation = await reserveSale(db, {
        linkReference: reference,
        attemptKey: null,
        answers: [],
        card: CARD,
        now: new Date(),
        shownPrice,
      });
      assert.equal(reservation.kind, "reserved");
      const link = await loadCheckoutLink(db, reference, { kind: "link" });
      assert.ok(link && reservation.kind === "reserved");
      return { reference, link, checkoutReference: reservation.checkoutReference, attempt: reservation.attempt };
    };
    const deps = () => ({ db: server.database.db, now: () => new Date() });

    it("voids an approval the link no longer takes: slot released, cancel owed, failure messages; a second result writes nothing", async () => {
      const { reference, link, checkoutReference, attempt } = await reserved();
      const db = server.database.db;
      await db.updateTable("payment_links").set({ disabled: true }).where("reference", "=", reference).execute();
      const outcome = { ...APPROVED, payfacReference: "PFTESTVOIDED00001" };
      // The reservation's copy still says open, as the checkout passes it: the sale's write must
      // find the link closed and decide again.
      const recorded = await recordPaymentOutcome(deps(), {
        checkoutReference,
        link,
        outcome,
        answer: answer(outcome.payfacReference),
        reserved: attempt,
      });
      assert.equal(recorded?.recorded, "voided");
      assert.equal(recorded?.voidReason, "Link disabled");
      assert.deepEqual(await linkRow(reference), { sales_count: 0, reserved_count: 0 });
      const [submission] = await submissionsOf(reference);
      assert.deepEqual([submission!.state, submission!.reason, submission!.cancel_pending], ["failed", "Link disabled", true]);
      const messages = (await outboxMessages(server)).filter((m) => m.payload.merchantReference === reference);
      assert.deepEqual(
        messages.map((m) => m.payload.success),
        ["false", "false"],
      );
      const references = await db
        .selectFrom("payfac_references")
        .select("checkout_reference")
        .where("payfac_reference", "=", "PFTESTVOIDED00001")
        .execute();
      assert.deepEqual(references, [{ checkout_reference: checkoutReference }]);

      // Finished: a later answer (another post, a notification) writes nothing.
      const declined = {
        kind: "declined" as const,
        payfacReference: "PFTESTVOIDED00002",
        reason: "Refused",
        cardBrand: "VI",
        cardUsage: "Debit",
      };
      assert.equal(await recordPaymentOutcome(deps(), { checkoutReference, link, outcome: declined, answer: undefined }), undefined);
      assert.deepEqual(await linkRow(reference), { sales_count: 0, reserved_count: 0 });
      assert.equal((await outboxMessages(server)).filter((m) => m.payload.merchantReference === reference).length, 2);
    });

    it("a stale reservation copy that says expired voids nothing: the link as it stands decides", async () => {
      const { reference, link, checkoutReference, attempt } = await reserved();
      const stale = { ...attempt, link: { ...attempt.link, terms: { ...attempt.link.terms, validUntil: new Date(Date.now() - 60_000) } } };
      const outcome = { ...APPROVED, payfacReference: "PFTESTSTALE00001" };
      const recorded = await recordPaymentOutcome(deps(), {
        checkoutReference,
        link,
        outcome,
        answer: answer(outcome.payfacReference),
        reserved: stale,
      });
      assert.equal(recorded?.recorded, "approved");
      assert.deepEqual(await linkRow(reference), { sales_count: 1, reserved_count: 0 });
    });

    it("a link closed between the read and the sale: decided again, voided, not sold", { skip: backend.name !== "postgres" }, async () => {
      const { reference, link, checkoutReference } = await reserved();
      const db = server.database.db;
      const outcome = { ...APPROVED, payfacReference: "PFTESTRACE000001" };
      let recording: Promise<unknown> | undefined;
      await db.transaction().execute(async (trx) => {
        // The link's row is locked and disabled, not yet committed: the recording reads it open,
        // then waits at the sale for this commit.
        await trx.updateTable("payment_links").set({ disabled: true }).where("reference", "=", reference).execute();
        recording = recordPaymentOutcome(deps(), { checkoutReference, link, outcome, answer: answer(outcome.payfacReference) });
        await new Promise((resolve) => setTimeout(resolve, 300));
      });
      const recorded = (await recording) as Awaited<ReturnType<typeof recordPaymentOutcome>>;
      assert.equal(recorded?.recorded, "voided");
      assert.equal(recorded?.voidReason, "Link disabled");
      assert.deepEqual(await linkRow(reference), { sales_count: 0, reserved_count: 0 });
      const messages = (await outboxMessages(server)).filter((m) => m.payload.merchantReference === reference);
      assert.deepEqual(
        messages.map((m) => m.payload.success),
        ["false", "false"],
        "only the voided attempt's messages: the rolled-back sale left none",
      );
    });
  });
}
