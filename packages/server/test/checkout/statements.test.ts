// The checkout's statements on one session (on PostgreSQL one connection): every step of a post,
// every kind of result, twice, and still working after a migration adds a column to the tables
// they read while the instance runs.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { finishCheckoutAttempt, takeCheckoutAttempt } from "../../src/db/checkout-attempts-repository.ts";
import { type CheckoutLink, loadCheckoutLink } from "../../src/db/checkout-repository.ts";
import type { Database } from "../../src/db/connect.ts";
import { insertLinkIfReferencesValid } from "../../src/db/links-repository.ts";
import { createMerchant, createTerminal } from "../../src/db/merchants-repository.ts";
import { reserveSale } from "../../src/db/reservations-repository.ts";
import { cartDigest } from "../../src/domain/links/cart.ts";
import type { CreateLinkRequest } from "../../src/domain/links/create.ts";
import { termsFromCreateRequest } from "../../src/domain/links/create.ts";
import type { ProcessorOutcome } from "../../src/domain/payments/payment-outcome.ts";
import { recordPaymentOutcome } from "../../src/services/record-payment-outcome.ts";
import { linkCreated } from "../support/audit.ts";
import { oneSessionOf, type TestDatabase, testBackends } from "../support/databases.ts";

const CARD = { brand: "VISA", masked: "411111******1111", last4: "1111", expiry: "12/30" };

const OUTCOMES: ProcessorOutcome[] = [
  { kind: "approved", payfacReference: "", authCode: "A1", token: null, cardBrand: "VISA", cardUsage: "Credit" },
  { kind: "declined", payfacReference: "", reason: "Refused", cardBrand: "VISA", cardUsage: "Credit" },
  { kind: "failed", reason: "Processor unavailable" },
];

for (const backend of testBackends()) {
  describe(`the checkout's statements on one session (${backend.name})`, () => {
    let database: TestDatabase;
    /** One session (on PostgreSQL a single connection), so its prepared statements can be read. */
    let db: Database;
    let close: () => Promise<void> = async () => {};
    let merchantId: string;
    let terminalIdentifier: string;
    let payments = 0;

    before(async () => {
      database = await backend.open();
      ({ db, close } = await oneSessionOf(database));
      ({ merchantId } = await createMerchant(database.db, "Prepared checkout"));
      ({ terminalIdentifier } = await createTerminal(database.db, merchantId, "Till", null));
      const request = { type: "PayByLink", terminalIdentifier, amount: 500, currency: "ISK", description: "Tickets", items: [] };
      const terms = termsFromCreateRequest(request as unknown as CreateLinkRequest, new Date());
      assert.equal(
        await insertLinkIfReferencesValid(database.db, "preparedpay", merchantId, terms, linkCreated(merchantId, "preparedpay")),
        true,
      );
    });
    after(async () => {
      await close();
      await database.destroy();
    });

    /** A page view, a brake attempt, a reservation and its result, as a post runs them. */
    const payOnce = async (outcome: ProcessorOutcome) => {
      const now = new Date();
      const attempt = await takeCheckoutAttempt(
        db,
        { clientKey: "client", linkReference: "preparedpay" },
        { limit: 100, windowMs: 60_000 },
        now,
      );
      assert.equal(attempt.kind, "taken");
      const answers = [{ field: "FullName", value: "Jón" }];
      const reservation = await reserveSale(db, {
        linkReference: "preparedpay",
        attemptKey: `attempt${++payments}`,
        answers,
        card: CARD,
        now,
        shownPrice: { amount: 500, currency: "ISK", cart: cartDigest([]) },
      });
      assert.equal(reservation.kind, "reserved");
      if (reservation.kind !== "reserved") return;
      const payfac = "payfacReference" in outcome ? { ...outcome, payfacReference: `PF${payments}` } : outcome;
      const link = (await loadCheckoutLink(db, "preparedpay", { kind: "link" })) as CheckoutLink;
      const recorded = await recordPaymentOutcome(
        { db, now: () => now },
        { checkoutReference: reservation.checkoutReference, link, outcome: payfac, answer: undefined },
      );
      assert.equal(recorded?.recorded, outcome.kind);
      assert.equal(recorded?.submission.state, outcome.kind);
      assert.equal(recorded?.submission.amount, 500);
      assert.deepEqual(recorded?.submission.answers, answers);
      if (attempt.kind === "taken") await finishCheckoutAttempt(db, attempt.ticket, outcome.kind === "declined");
    };

    it("count visits, take the brake and a slot, and record every kind of result, twice on one connection", async () => {
      for (const round of [1, 2]) {
        const visited = await loadCheckoutLink(db, "preparedpay", { countVisit: true, kind: "link" });
        assert.equal(visited?.visitCount, round);
        assert.equal(visited?.merchantName, "Prepared checkout");
        assert.equal(
          (await loadCheckoutLink(db, "preparedpay", { kind: "link" }))?.visitCount,
          round,
          "a read without a visit counts none",
        );
        for (const outcome of OUTCOMES) await payOnce(outcome);
        const link = await loadCheckoutLink(db, "preparedpay", { kind: "link" });
        assert.deepEqual([link?.salesCount, link?.reservedCount], [round, 0], "one sale per round, no slot left held");
      }
      assert.equal(await loadCheckoutLink(db, "nosuchlink", { countVisit: true, kind: "link" }), undefined);
      const brake = await database.db.selectFrom("checkout_attempts").select(["failures", "in_flight"]).executeTakeFirstOrThrow();
      assert.deepEqual([brake.failures, brake.in_flight], [2, 0], "the two declines kept, every attempt finished");
    });

    it("keep working when a migration adds columns to payment_links and submissions under a running instance", async () => {
      await sql`ALTER TABLE payment_links ADD COLUMN later_column text`.execute(database.db);
      await sql`ALTER TABLE submissions ADD COLUMN later_column text`.execute(database.db);
      assert.equal((await loadCheckoutLink(db, "preparedpay", { countVisit: true, kind: "link" }))?.visitCount, 3);
      for (const outcome of OUTCOMES) await payOnce(outcome);
      assert.equal((await loadCheckoutLink(db, "preparedpay", { kind: "link" }))?.salesCount, 3);
    });
  });
}
