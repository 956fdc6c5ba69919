// A processor's result written by one statement (D-231): under concurrent payments of one link (on
// two app instances sharing PostgreSQL) every result has its counters, payfacReference and webhook
// rows, and the statement writes nothing at all when the case is not the common one.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { recordCommonResult } from "../../src/db/record-result-at-once.ts";
import { reserveSale } from "../../src/db/reserve-sale.ts";
import { cartDigest } from "../../src/domain/links/cart.ts";
import { testBackends } from "../support/databases.ts";
import { startSecondInstance, startTestServer, type TestServer } from "../support/harness.ts";
import { addWebhookEndpoint, outboxMessages } from "../support/outbox.ts";
import { CARDS, cardFields, createLink, getPage, hiddenInputs, postForm } from "../support/shopper.ts";

for (const backend of testBackends()) {
  describe(`a result in one statement (${backend.name})`, () => {
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

    it("writes nothing when the approval is not the common case: a link disabled meanwhile, a pending row other than expected", async () => {
      const reference = await createLink(server);
      const db = server.database.db;
      const card = { brand: "VI", masked: "411111******1111", last4: "1111", expiry: "08/2030" };
      const shownPrice = {
        amount: 48900,
        currency: "ISK",
        cart: cartDigest([{ name: "Lopapeysa", quantity: 1, unitPrice: 48900, amountWithoutDiscount: 48900, amount: 48900 }]),
      };
      const reservation = await reserveSale(db, {
        linkReference: reference,
        attemptKey: null,
        answers: [],
        card,
        now: new Date(),
        shownPrice,
      });
      assert.equal(reservation.kind, "reserved");
      if (reservation.kind !== "reserved") return;
      const approved = {
        kind: "approved" as const,
        payfacReference: "PFTESTCOMMON00001",
        authCode: "123456",
        token: null,
        cardBrand: "VI",
        cardUsage: "Debit",
      };
      const result = {
        checkoutReference: reservation.checkoutReference,
        linkReference: reference,
        merchantId: server.merchantId,
        pending: { amount: 48900, currency: "ISK", answers: [], card },
        outcome: approved,
        now: new Date(),
        events: () => [
          { eventType: "Authorization", message: { checkoutReference: reservation.checkoutReference, merchantReference: reference } },
        ],
      };
      const untouched = async () => {
        const [submission] = await submissionsOf(reference);
        assert.equal(submission!.state, "pending");
        assert.deepEqual(await linkRow(reference), { sales_count: 0, reserved_count: 1 });
        const messages = (await outboxMessages(server)).filter((m) => m.payload.merchantReference === reference);
        assert.equal(messages.length, 0);
        const references = await db
          .selectFrom("payfac_references")
          .select("payfac_reference")
          .where("payfac_reference", "=", "PFTESTCOMMON00001")
          .execute();
        assert.equal(references.length, 0);
      };

      // The pending row holds another card than the caller's messages would say.
      assert.equal(
        await recordCommonResult(db, { ...result, pending: { ...result.pending, card: { ...card, last4: "4444" } } }),
        undefined,
      );
      await untouched();
      // Disabled while the card was at the processor: the approval is no sale here.
      await db.updateTable("payment_links").set({ disabled: true }).where("reference", "=", reference).execute();
      assert.equal(await recordCommonResult(db, result), undefined);
      await untouched();
      // A decline needs no open link: it is written, with its message, and frees the slot.
      const declined = {
        kind: "declined" as const,
        payfacReference: "PFTESTCOMMON00002",
        reason: "Refused",
        cardBrand: "VI",
        cardUsage: "Debit",
      };
      const recorded = await recordCommonResult(db, { ...result, outcome: declined });
      assert.equal(recorded?.recorded, "declined");
      assert.equal(recorded?.submission.reason, "Refused");
      assert.deepEqual(await linkRow(reference), { sales_count: 0, reserved_count: 0 });
      const messages = (await outboxMessages(server)).filter((m) => m.payload.merchantReference === reference);
      assert.equal(messages.length, 2);
      // Not pending any more: a second result writes nothing.
      assert.equal(await recordCommonResult(db, { ...result, outcome: declined }), undefined);
    });
  });
}
