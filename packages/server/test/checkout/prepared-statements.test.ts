// The checkout's fixed statements (D-232): named prepared statements on PostgreSQL and on PGlite
// (D-224), the same results either way, and still working after a migration adds a column
// to the tables they read while the instance runs (a prepared `SELECT *` or `RETURNING *` would fail).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { finishCheckoutAttempt, takeCheckoutAttempt } from "../../src/db/checkout-attempts-repository.ts";
import { loadCheckoutLink } from "../../src/db/checkout-repository.ts";
import type { Database } from "../../src/db/connect.ts";
import { waitUntilDurable } from "../../src/db/durable-commit.ts";
import { insertLinkIfReferencesValid } from "../../src/db/links-repository.ts";
import { createMerchant, createTerminal } from "../../src/db/merchants-repository.ts";
import { recordCommonResult } from "../../src/db/record-result-at-once.ts";
import type { ProcessorOutcome } from "../../src/db/reservations-repository.ts";
import { reserveSale } from "../../src/db/reserve-sale.ts";
import { cartDigest } from "../../src/domain/links/cart.ts";
import type { CreateLinkRequest } from "../../src/domain/links/create.ts";
import { termsFromCreateRequest } from "../../src/domain/links/create.ts";
import { oneSessionOf, type TestDatabase, testBackends } from "../support/databases.ts";

const NAMES = [
  "checkout_brake_finish",
  "checkout_brake_take",
  "checkout_read",
  "checkout_read_counting_visit",
  "checkout_record_approved",
  "checkout_record_declined",
  "checkout_record_failed",
  "checkout_take_slot",
  "wait_until_durable",
];

const CARD = { brand: "VISA", masked: "411111******1111", last4: "1111", expiry: "12/30" };

const OUTCOMES: ProcessorOutcome[] = [
  { kind: "approved", payfacReference: "", authCode: "A1", token: null, cardBrand: "VISA", cardUsage: "Credit" },
  { kind: "declined", payfacReference: "", reason: "Refused", cardBrand: "VISA", cardUsage: "Credit" },
  { kind: "failed", reason: "Processor unavailable" },
];

for (const backend of testBackends()) {
  describe(`prepared statements of the checkout (${backend.name})`, () => {
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
      assert.equal(await insertLinkIfReferencesValid(database.db, "preparedpay", merchantId, terms), true);
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
      const recorded = await recordCommonResult(db, {
        checkoutReference: reservation.checkoutReference,
        linkReference: "preparedpay",
        merchantId,
        pending: { amount: 500, currency: "ISK", answers, card: CARD },
        outcome: payfac,
        now,
        events: () => [],
      });
      assert.equal(recorded?.recorded, outcome.kind);
      assert.equal(recorded?.submission.state, outcome.kind);
      assert.equal(recorded?.submission.amount, 500);
      assert.deepEqual(recorded?.submission.answers, answers);
      if (attempt.kind === "taken") await finishCheckoutAttempt(db, attempt.ticket, outcome.kind === "declined");
      await waitUntilDurable(db);
    };

    it("count visits, take the brake and a slot, and record every kind of result, twice on one connection", async () => {
      for (const round of [1, 2]) {
        const visited = await loadCheckoutLink(db, "preparedpay", { countVisit: true });
        assert.equal(visited?.visitCount, round);
        assert.equal(visited?.merchantName, "Prepared checkout");
        assert.equal((await loadCheckoutLink(db, "preparedpay"))?.visitCount, round, "a read without a visit counts none");
        for (const outcome of OUTCOMES) await payOnce(outcome);
        const link = await loadCheckoutLink(db, "preparedpay");
        assert.deepEqual([link?.salesCount, link?.reservedCount], [round, 0], "one sale per round, no slot left held");
      }
      assert.equal(await loadCheckoutLink(db, "nosuchlink", { countVisit: true }), undefined);
      const brake = await database.db.selectFrom("checkout_attempts").select(["failures", "in_flight"]).executeTakeFirstOrThrow();
      assert.deepEqual([brake.failures, brake.in_flight], [2, 0], "the two declines kept, every attempt finished");
    });

    it("are named prepared statements of the session", async () => {
      const { rows } = await sql<{ name: string }>`SELECT name FROM pg_prepared_statements ORDER BY name`.execute(db);
      const names = rows.map((r) => r.name).filter((name) => NAMES.includes(name));
      assert.deepEqual(names, NAMES);
    });

    it("keep working when a migration adds columns to payment_links and submissions under a running instance", async () => {
      await sql`ALTER TABLE payment_links ADD COLUMN later_column text`.execute(database.db);
      await sql`ALTER TABLE submissions ADD COLUMN later_column text`.execute(database.db);
      assert.equal((await loadCheckoutLink(db, "preparedpay", { countVisit: true }))?.visitCount, 3);
      for (const outcome of OUTCOMES) await payOnce(outcome);
      assert.equal((await loadCheckoutLink(db, "preparedpay"))?.salesCount, 3);
    });
  });
}
