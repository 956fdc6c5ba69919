// The sale cap (docs/checkout.md#sale-cap-and-payments-in-flight): salesCount never exceeds maxSalesCount under concurrent payments, on
// one instance and on two instances sharing one PostgreSQL; a slot is reserved before the charge
// and released on decline, error or crash, so an approved card is never left without a sale.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { reserveSale } from "../../src/db/reservations-repository.ts";
import { cartDigest } from "../../src/domain/links/cart.ts";
import type { AuthorizeRequest, AuthorizeResult, PaymentProcessor } from "../../src/payments/processor.ts";
import { SandboxProcessor } from "../../src/payments/sandbox.ts";
import { reconcileStalePayments } from "../../src/services/reconcile-payments.ts";
import { testBackends } from "../support/databases.ts";
import { startSecondInstance, startTestServer, type TestServer } from "../support/harness.ts";
import { addWebhookEndpoint, outboxMessages } from "../support/outbox.ts";
import { CARDS, cardFields, createLink, getPage, hiddenInputs, postForm, textOf } from "../support/shopper.ts";
import { waitUntil } from "../support/wait.ts";

/** The sandbox with latency, counting approvals; optionally holding every call until released. */
class ObservedProcessor implements PaymentProcessor {
  readonly name = "observed";
  readonly sandbox: SandboxProcessor;
  approvals: string[] = [];
  cancelled: string[] = [];
  inFlight = 0;
  private gate: Promise<void> | undefined;
  private openGate: (() => void) | undefined;
  private waiters: Array<{ count: number; resolve: () => void }> = [];
  calls = 0;

  constructor(latencyMs: number) {
    this.sandbox = new SandboxProcessor({ latencyMs });
  }
  hold() {
    this.gate = new Promise((resolve) => (this.openGate = resolve));
  }
  release() {
    this.openGate?.();
    this.gate = undefined;
  }
  /** Resolves once `count` calls have started. */
  started(count: number): Promise<void> {
    if (this.calls >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }
  async authorize(request: AuthorizeRequest): Promise<AuthorizeResult> {
    this.calls++;
    this.inFlight++;
    for (const waiter of this.waiters.filter((w) => this.calls >= w.count)) waiter.resolve();
    try {
      if (this.gate) await this.gate;
      const result = await this.sandbox.authorize(request);
      if (result.approved) this.approvals.push(result.payfacReference);
      return result;
    } finally {
      this.inFlight--;
    }
  }
  cancelFails = false;
  async cancel(payfacReference: string) {
    if (this.cancelFails) throw new Error("processor unreachable");
    this.cancelled.push(payfacReference);
  }
  reversed: string[] = [];
  async reverseAttempt(checkoutReference: string) {
    this.reversed.push(checkoutReference);
  }
}

async function linkState(server: TestServer, reference: string) {
  const link = (await server.api("GET", `/api/v1/paymentlinks/${reference}`)).body.paymentLink;
  const row = await server.database.db
    .selectFrom("payment_links")
    .select(["reserved_count", "sales_count"])
    .where("reference", "=", reference)
    .executeTakeFirstOrThrow();
  return { link, reservedCount: row.reserved_count };
}

/** `count` shoppers each open the page (on alternating instances) and then all pay at once. */
async function concurrentPayments(instances: TestServer[], reference: string, count: number, card: (i: number) => string) {
  const pages = await Promise.all(
    Array.from({ length: count }, (_, i) => getPage(instances[i % instances.length]!.baseUrl, `/pay/${reference}`)),
  );
  for (const page of pages) assert.equal(page.status, 200);
  return Promise.all(
    pages.map((page, i) =>
      postForm(instances[(i + 1) % instances.length]!.baseUrl, reference, { ...hiddenInputs(page.html), ...cardFields(card(i)) }),
    ),
  );
}

for (const backend of testBackends()) {
  describe(`sale cap under concurrency (${backend.name})`, () => {
    let server: TestServer;
    let second: TestServer | undefined;
    const processor = new ObservedProcessor(15);
    const secondProcessor = new ObservedProcessor(15);
    let instances: TestServer[];

    before(async () => {
      server = await startTestServer({ backend, processor });
      if (backend.name === "postgres") second = await startSecondInstance(server, { processor: secondProcessor });
      instances = second ? [server, second] : [server];
      await addWebhookEndpoint(server);
    });
    after(async () => {
      await second?.close();
      await server.close();
    });

    it(`20 concurrent payments at exactSalesCount 3 make exactly 3 sales${backend.name === "postgres" ? " (two app instances)" : ""}`, async () => {
      const reference = await createLink(server, { exactSalesCount: 3, returnUrl: "https://shop.example/done" });
      const approvalsBefore = processor.approvals.length + secondProcessor.approvals.length;
      const responses = await concurrentPayments(instances, reference, 20, () => CARDS.visa);
      const statuses = responses.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 303).length, 3, statuses.join(","));
      assert.equal(statuses.filter((s) => s === 410).length, 17, statuses.join(","));
      for (const response of responses.filter((r) => r.status === 410)) assert.ok(textOf(response.html).includes("Uppselt"));

      const { link, reservedCount } = await linkState(server, reference);
      assert.equal(link.salesCount, 3);
      assert.equal(link.status, "Used");
      assert.equal(link.submissions.length, 3, "no submission for shoppers who found no slot");
      assert.equal(link.submissions.filter((s: any) => s.completed).length, 3);
      assert.equal(reservedCount, 0);
      assert.equal(processor.approvals.length + secondProcessor.approvals.length - approvalsBefore, 3, "one processor call per sale");
      const redirected = new Set(
        responses.filter((r) => r.status === 303).map((r) => new URL(r.location!).searchParams.get("checkoutReference")),
      );
      assert.deepEqual([...redirected].sort(), link.submissions.map((s: any) => s.checkoutReference).sort());
      const messages = (await outboxMessages(server)).filter((m) => m.payload.merchantReference === reference);
      assert.equal(messages.length, 3);
      if (second) assert.ok(processor.approvals.length > 0 || secondProcessor.approvals.length > 0);
    });

    it("with declines mixed in: every approved card has its sale, and the cap holds", async () => {
      const reference = await createLink(server, { exactSalesCount: 3 });
      const approvalsBefore = processor.approvals.length + secondProcessor.approvals.length;
      const responses = await concurrentPayments(instances, reference, 20, (i) => (i % 2 === 0 ? CARDS.refused : CARDS.mastercard));
      const approvedResponses = responses.filter((r) => r.status === 200).length;
      const declinedResponses = responses.filter((r) => r.status === 402).length;
      const { link, reservedCount } = await linkState(server, reference);
      const approvals = processor.approvals.length + secondProcessor.approvals.length - approvalsBefore;
      assert.ok(link.salesCount <= 3);
      assert.equal(link.salesCount, approvals, "every approval became a sale");
      assert.equal(link.salesCount, approvedResponses);
      assert.equal(link.submissions.filter((s: any) => s.completed).length, link.salesCount);
      assert.equal(link.submissions.filter((s: any) => !s.completed).length, declinedResponses);
      assert.equal(reservedCount, 0);
      assert.equal(responses.filter((r) => ![200, 402, 410].includes(r.status)).length, 0);
    });

    it("a decline releases its slot: cap 1, declined then approved", async () => {
      const reference = await createLink(server, { exactSalesCount: 1 });
      const declined = await postForm(server.baseUrl, reference, {
        ...hiddenInputs((await getPage(server.baseUrl, `/pay/${reference}`)).html),
        ...cardFields(CARDS.cvcDeclined),
      });
      assert.equal(declined.status, 402);
      const approved = await postForm(server.baseUrl, reference, { ...hiddenInputs(declined.html), ...cardFields(CARDS.visa) });
      assert.equal(approved.status, 200);
      const { link, reservedCount } = await linkState(server, reference);
      assert.equal(link.salesCount, 1);
      assert.equal(reservedCount, 0);
    });

    it("while the last slot is being paid for, another shopper is told so (410) and nothing is recorded for them", async () => {
      const reference = await createLink(server, { exactSalesCount: 1, culture: "en" });
      const [first, other] = await Promise.all([
        getPage(server.baseUrl, `/pay/${reference}`),
        getPage(server.baseUrl, `/pay/${reference}`),
      ]);
      processor.hold();
      const callsBefore = processor.calls;
      const paying = postForm(server.baseUrl, reference, { ...hiddenInputs(first.html), ...cardFields(CARDS.visa) });
      await processor.started(callsBefore + 1);
      const blocked = await postForm(server.baseUrl, reference, { ...hiddenInputs(other.html), ...cardFields(CARDS.mastercard) });
      assert.equal(blocked.status, 410);
      assert.ok(textOf(blocked.html).includes("The last places are being paid for by other shoppers"));
      processor.release();
      assert.equal((await paying).status, 200);
      const { link } = await linkState(server, reference);
      assert.equal(link.salesCount, 1);
      assert.equal(link.submissions.length, 1);
    });

    it("a reservation left by a crashed process is released after its time-out", async () => {
      const reference = await createLink(server, { exactSalesCount: 1 });
      const db = server.database.db;
      const insertPending = async (id: string, age: string) => {
        await sql`INSERT INTO submissions (id, link_reference, answers, amount, currency, state, created_at)
          VALUES (${id}, ${reference}, '[]', 48900, 'ISK', 'pending', now() - ${age}::interval)`.execute(db);
        await sql`UPDATE payment_links SET reserved_count = reserved_count + 1 WHERE reference = ${reference}`.execute(db);
      };
      // A fresh reservation (a payment in flight elsewhere) holds the slot.
      await insertPending("crashRecent000000001", "1 minute");
      const page = await getPage(server.baseUrl, `/pay/${reference}`);
      assert.equal((await postForm(server.baseUrl, reference, { ...hiddenInputs(page.html), ...cardFields() })).status, 410);
      // Once it is older than the time-out, the next payment releases it and takes the slot.
      await sql`UPDATE submissions SET created_at = now() - interval '16 minutes' WHERE id = 'crashRecent000000001'`.execute(db);
      const paid = await postForm(server.baseUrl, reference, {
        ...hiddenInputs((await getPage(server.baseUrl, `/pay/${reference}`)).html),
        ...cardFields(),
      });
      assert.equal(paid.status, 200);
      const { link, reservedCount } = await linkState(server, reference);
      assert.equal(link.salesCount, 1);
      assert.equal(reservedCount, 0);
      const states = await db
        .selectFrom("submissions")
        .select(["id", "state", "completed"])
        .where("link_reference", "=", reference)
        .orderBy("created_at")
        .execute();
      assert.deepEqual(
        states.map((s) => [s.state, s.completed]),
        [
          ["abandoned", false],
          ["approved", true],
        ],
      );
      assert.ok(processor.reversed.includes("crashRecent000000001"), "reversed at the processor before the slot was released");
    });

    it("the price cannot change while a payment is in flight (409 3003); the sale keeps the price it was charged", async () => {
      const reference = await createLink(server, { culture: "en" });
      const page = await getPage(server.baseUrl, `/pay/${reference}`);
      processor.hold();
      const callsBefore = processor.calls;
      const paying = postForm(server.baseUrl, reference, { ...hiddenInputs(page.html), ...cardFields(CARDS.visa) });
      await processor.started(callsBefore + 1);
      const { submissions: _ignored, ...editable } = (await server.api("GET", `/api/v1/paymentlinks/${reference}`)).body.paymentLink;
      const cheaper = {
        amount: 12300,
        items: [{ name: "Lopapeysa", quantity: 1, unitPrice: 12300, amountWithoutDiscount: 12300, amount: 12300 }],
      };
      const refused = await server.api("POST", "/api/v1/paymentlinks/update", { ...editable, ...cheaper });
      assert.equal(refused.status, 409, JSON.stringify(refused.body));
      assert.equal(refused.body.errorCode, "3003");
      assert.match(refused.body.errorMessage, /payment is in progress/);
      // Other fields may still change.
      assert.equal((await server.api("POST", "/api/v1/paymentlinks/update", { ...editable, description: "still editable" })).status, 200);
      processor.release();
      assert.equal((await paying).status, 200);
      const { link } = await linkState(server, reference);
      assert.equal(link.amount, 48900);
      assert.equal(link.submissions[0].amount, 48900);
      const message = (await outboxMessages(server)).find((m) => m.payload.merchantReference === reference)!;
      assert.equal(message.payload.amount, "48900");
    });

    it("a price changed after the page was opened is shown again (409) and nothing is charged; the new price is paid after a look", async () => {
      const reference = await createLink(server, { culture: "en" });
      const page = await getPage(server.baseUrl, `/pay/${reference}`);
      const { submissions: _ignored, ...editable } = (await server.api("GET", `/api/v1/paymentlinks/${reference}`)).body.paymentLink;
      const dearer = {
        amount: 99900,
        items: [{ name: "Lopapeysa", quantity: 1, unitPrice: 99900, amountWithoutDiscount: 99900, amount: 99900 }],
      };
      assert.equal((await server.api("POST", "/api/v1/paymentlinks/update", { ...editable, ...dearer })).status, 200);
      const callsBefore = processor.calls;
      const stale = await postForm(server.baseUrl, reference, { ...hiddenInputs(page.html), ...cardFields(CARDS.visa) });
      assert.equal(stale.status, 409);
      assert.match(textOf(stale.html), /The price has changed/);
      assert.match(textOf(stale.html), /Total ISK 999/, "the page shows the new total (English)");
      assert.equal(processor.calls, callsBefore, "the processor was not called");
      assert.equal((await linkState(server, reference)).link.submissions.length, 0);
      // The page that came back carries the new price: paying from it charges 99900.
      const paid = await postForm(server.baseUrl, reference, { ...hiddenInputs(stale.html), ...cardFields(CARDS.visa) });
      assert.equal(paid.status, 200);
      const { link } = await linkState(server, reference);
      assert.equal(link.salesCount, 1);
      assert.equal(link.submissions[0].amount, 99900);
    });

    it("a cart changed to other items at the same total is shown again (409) and nothing is charged; the new cart is paid after a look", async () => {
      const reference = await createLink(server, { culture: "en" });
      const page = await getPage(server.baseUrl, `/pay/${reference}`);
      const { submissions: _ignored, ...editable } = (await server.api("GET", `/api/v1/paymentlinks/${reference}`)).body.paymentLink;
      const otherItems = [
        { name: "Vettlingar", quantity: 2, unitPrice: 14450, amountWithoutDiscount: 28900, amount: 28900 },
        { name: "Húfa", quantity: 1, unitPrice: 20000, amountWithoutDiscount: 20000, amount: 20000 },
      ];
      assert.equal((await server.api("POST", "/api/v1/paymentlinks/update", { ...editable, items: otherItems })).status, 200);
      const callsBefore = processor.calls;
      const stale = await postForm(server.baseUrl, reference, { ...hiddenInputs(page.html), ...cardFields(CARDS.visa) });
      assert.equal(stale.status, 409);
      assert.match(textOf(stale.html), /The price has changed/);
      assert.match(textOf(stale.html), /Vettlingar/, "the page shows the new cart");
      assert.equal(processor.calls, callsBefore, "the processor was not called");
      assert.equal((await linkState(server, reference)).link.submissions.length, 0);
      const paid = await postForm(server.baseUrl, reference, { ...hiddenInputs(stale.html), ...cardFields(CARDS.visa) });
      assert.equal(paid.status, 200);
      assert.equal((await linkState(server, reference)).link.salesCount, 1);
    });

    it("the reservation itself requires the cart the page showed (a change between the page's check and the reservation)", async () => {
      const reference = await createLink(server);
      const card = { brand: "VI", masked: "411111******1111", last4: "1111", expiry: "08/2030" };
      const shown = { amount: 48900, currency: "ISK", cart: "A".repeat(22) };
      const input = { linkReference: reference, attemptKey: null, answers: [], card, now: new Date(), shownPrice: shown };
      assert.equal((await reserveSale(server.database.db, input)).kind, "unavailable");
      const { link, reservedCount } = await linkState(server, reference);
      assert.equal(reservedCount, 0);
      assert.equal(link.submissions.length, 0);
    });

    if (backend.name === "postgres") {
      it("a double-click on the last slot that waited for the first post's lock answers with the first post's payment, not 'sold out'", async () => {
        const reference = await createLink(server, { exactSalesCount: 1 });
        const db = server.database.db;
        const attemptKey = "double-click-attempt-0001";
        const card = { brand: "VI", masked: "411111******1111", last4: "1111", expiry: "08/2030" };
        const input = {
          linkReference: reference,
          attemptKey,
          answers: [],
          card,
          now: new Date(),
          shownPrice: {
            amount: 48900,
            currency: "ISK",
            cart: cartDigest([{ name: "Lopapeysa", quantity: 1, unitPrice: 48900, amountWithoutDiscount: 48900, amount: 48900 }]),
          },
        };
        // The first post's reservation, held open in its own transaction until the second post waits on it.
        let reserved!: () => void;
        const firstReserved = new Promise<void>((resolve) => (reserved = resolve));
        let commit!: () => void;
        const mayCommit = new Promise<void>((resolve) => (commit = resolve));
        const firstCommitted = db.connection().execute(async (conn) => {
          await sql`BEGIN`.execute(conn);
          await sql`UPDATE payment_links SET reserved_count = reserved_count + 1 WHERE reference = ${reference}`.execute(conn);
          await sql`INSERT INTO submissions (id, link_reference, answers, amount, currency, state, attempt_key)
            VALUES ('firstPostOfDoubleClk', ${reference}, '[]', 48900, 'ISK', 'pending', ${attemptKey})`.execute(conn);
          reserved();
          await mayCommit;
          await sql`COMMIT`.execute(conn);
        });
        await firstReserved;
        // The second post: its duplicate check runs before the commit, so finds nothing; its UPDATE
        // then waits on the first post's row lock, which PostgreSQL shows as a lock wait.
        const secondReserved = reserveSale(db, input);
        try {
          await waitUntil(
            async () => {
              const { rows } = await sql<{ waiting: number | string }>`SELECT count(*) AS waiting FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(db);
              return Number(rows[0]!.waiting) > 0;
            },
            10_000,
            "the second post waiting on the first post's lock",
          );
        } finally {
          commit();
        }
        const second = await secondReserved;
        await firstCommitted;
        assert.equal(second.kind, "duplicate");
        assert.equal(second.kind === "duplicate" && second.submission.checkoutReference, "firstPostOfDoubleClk");
        const { reservedCount } = await linkState(server, reference);
        assert.equal(reservedCount, 1, "no second reservation");
      });
    }

    it("if the merchant lowers the cap while cards are being charged, the approval without a slot is cancelled, not oversold", async () => {
      const reference = await createLink(server, { exactSalesCount: 2, culture: "en" });
      const [a, b] = await Promise.all([getPage(server.baseUrl, `/pay/${reference}`), getPage(server.baseUrl, `/pay/${reference}`)]);
      processor.hold();
      const callsBefore = processor.calls;
      const payments = [a, b].map((page) => postForm(server.baseUrl, reference, { ...hiddenInputs(page.html), ...cardFields(CARDS.visa) }));
      await processor.started(callsBefore + 2);
      const current = (await server.api("GET", `/api/v1/paymentlinks/${reference}`)).body.paymentLink;
      const { submissions: _ignored, ...editable } = current;
      const update = await server.api("POST", "/api/v1/paymentlinks/update", { ...editable, maxSalesCount: 1 });
      assert.equal(update.status, 200, JSON.stringify(update.body));
      processor.release();
      const responses = await Promise.all(payments);
      assert.deepEqual(responses.map((r) => r.status).sort(), [200, 410]);
      const voided = responses.find((r) => r.status === 410)!;
      assert.ok(textOf(voided.html).includes("Your payment was cancelled, and you have not been charged"));
      assert.equal(processor.cancelled.length, 1);
      const { link, reservedCount } = await linkState(server, reference);
      assert.equal(link.salesCount, 1);
      assert.equal(link.maxSalesCount, 1);
      assert.equal(reservedCount, 0);
      assert.deepEqual(link.submissions.map((s: any) => s.completed).sort(), [false, true]);
      const messages = (await outboxMessages(server)).filter((m) => m.payload.merchantReference === reference);
      assert.deepEqual(messages.map((m) => m.payload.success).sort(), ["false", "true"]);
      assert.equal(messages.find((m) => m.payload.success === "false")!.payload.reason, "Sold out");
      const flags = await server.database.db
        .selectFrom("submissions")
        .select(["cancel_pending"])
        .where("link_reference", "=", reference)
        .execute();
      assert.deepEqual(
        flags.map((f) => f.cancel_pending),
        [false, false],
        "the cancel was confirmed",
      );
    });

    it("a voided approval whose cancel the processor does not confirm stays flagged until the reconciler cancels it", async () => {
      const reference = await createLink(server, { exactSalesCount: 2, culture: "en" });
      const [a, b] = await Promise.all([getPage(server.baseUrl, `/pay/${reference}`), getPage(server.baseUrl, `/pay/${reference}`)]);
      processor.hold();
      processor.cancelFails = true;
      const callsBefore = processor.calls;
      try {
        const payments = [a, b].map((page) =>
          postForm(server.baseUrl, reference, { ...hiddenInputs(page.html), ...cardFields(CARDS.visa) }),
        );
        await processor.started(callsBefore + 2);
        const { submissions: _ignored, ...editable } = (await server.api("GET", `/api/v1/paymentlinks/${reference}`)).body.paymentLink;
        assert.equal((await server.api("POST", "/api/v1/paymentlinks/update", { ...editable, maxSalesCount: 1 })).status, 200);
        processor.release();
        assert.deepEqual((await Promise.all(payments)).map((r) => r.status).sort(), [200, 410]);
      } finally {
        processor.cancelFails = false;
      }
      const db = server.database.db;
      const owed = await db
        .selectFrom("submissions")
        .select(["id", "payfac_reference"])
        .where("link_reference", "=", reference)
        .where("cancel_pending", "=", true)
        .execute();
      assert.equal(owed.length, 1, "the cancel is owed and recorded");
      const cancelledBefore = processor.cancelled.length;
      await reconcileStalePayments({ db, processor, log: { warn() {}, error() {}, info() {} } });
      assert.deepEqual(processor.cancelled.slice(cancelledBefore), [owed[0]!.payfac_reference]);
      const left = await db
        .selectFrom("submissions")
        .select("id")
        .where("link_reference", "=", reference)
        .where("cancel_pending", "=", true)
        .execute();
      assert.equal(left.length, 0);
    });
  });
}
