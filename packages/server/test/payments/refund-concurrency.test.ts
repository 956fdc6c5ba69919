// Refunds that race (docs/api.md#refund): the database keeps what is left to refund, so requests
// fired at once — on two Paylink instances sharing PostgreSQL, as behind a load balancer — never
// refund more than the payment. Disabling a card at once from many requests sends one webhook.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { refund, saveCard, sellLink } from "../support/after-sale.ts";
import { testBackends } from "../support/databases.ts";
import { assertError, assertOk } from "../support/fixtures.ts";
import { type ApiResponse, startSecondInstance, startTestServer, type TestServer } from "../support/harness.ts";
import { addWebhookEndpoint, outboxMessages } from "../support/outbox.ts";

for (const backend of testBackends()) {
  const twoInstances = backend.name === "postgres";
  describe(`refunds under concurrency (${backend.name}${twoInstances ? ", two instances" : ""})`, () => {
    let server: TestServer;
    let second: TestServer | undefined;
    /** Alternates requests between the instances. */
    const instance = (index: number) => (second && index % 2 === 1 ? second : server);

    before(async () => {
      server = await startTestServer({ backend });
      if (twoInstances) second = await startSecondInstance(server);
      await addWebhookEndpoint(server);
    });
    after(async () => {
      await second?.close();
      await server?.close();
    });

    const outcomes = (responses: ApiResponse[]) => {
      const ok = responses.filter((r) => r.status === 200);
      for (const r of responses.filter((r) => r.status !== 200)) assertError(r, 400, "2019");
      return ok;
    };

    it("20 refunds of the full amount fired at once: exactly one succeeds, with one Refund webhook", async () => {
      const { payfacReference } = await sellLink(server, 48900);
      const started = Date.now();
      const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => refund(instance(i), payfacReference, 48900)));
      const elapsed = Date.now() - started;
      const ok = outcomes(responses);
      assert.equal(ok.length, 1, `exactly one refund: ${responses.map((r) => r.status).join(",")}`);
      assertOk(ok[0]!);
      const balance = await server.db
        .selectFrom("refund_balances")
        .selectAll()
        .where("payfac_reference", "=", payfacReference)
        .executeTakeFirstOrThrow();
      assert.deepEqual([Number(balance.refunded_amount), Number(balance.reserved_amount)], [48900, 0]);
      const rows = await server.db
        .selectFrom("refunds")
        .select(["payfac_reference", "state"])
        .where("original_payfac_reference", "=", payfacReference)
        .execute();
      assert.deepEqual(rows, [{ payfac_reference: ok[0]!.body.payfacReference, state: "succeeded" }]);
      const events = (await outboxMessages(server)).filter(
        (m) => m.eventType === "Refund" && m.payload.additionalData.originalPayfacReference === payfacReference,
      );
      assert.equal(events.length, 1);
      assert.equal(events[0]!.payload.payfacReference, ok[0]!.body.payfacReference);
      console.log(`# ${backend.name}: 20 concurrent full refunds answered in ${elapsed} ms`);
    });

    it("20 refunds of a tenth each fired at once: exactly ten succeed and the payment is refunded exactly once over", async () => {
      const { payfacReference } = await sellLink(server, 100000);
      const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => refund(instance(i), payfacReference, 10000)));
      assert.equal(outcomes(responses).length, 10);
      const payment = await server.api("GET", `/api/v1/payments/${payfacReference}`);
      assert.equal(payment.body.payment.refundedAmount, 100000);
      assert.equal(payment.body.payment.refunds.length, 10);
    });

    it("refunds and reversals mixed at once never pass the payment's amount", async () => {
      const { payfacReference } = await sellLink(server, 90000);
      const responses = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          i % 3 === 0
            ? instance(i).api("POST", "/api/v1/modification/reverse", { payfacReference })
            : refund(instance(i), payfacReference, 20000),
        ),
      );
      for (const r of responses) assert.ok([200, 400, 409].includes(r.status), `status ${r.status}`);
      const balance = await server.db
        .selectFrom("refund_balances")
        .selectAll()
        .where("payfac_reference", "=", payfacReference)
        .executeTakeFirstOrThrow();
      assert.equal(Number(balance.refunded_amount) + Number(balance.reserved_amount), 90000, "everything refunded, nothing more");
      const refunded = await server.db
        .selectFrom("refunds")
        .select("amount")
        .where("original_payfac_reference", "=", payfacReference)
        .where("state", "=", "succeeded")
        .execute();
      assert.equal(
        refunded.reduce((sum, row) => sum + Number(row.amount), 0),
        90000,
      );
    });

    it("the database itself refuses a balance beyond the payment (the CHECK backs up the conditional UPDATE)", async () => {
      const { payfacReference } = await sellLink(server, 20000);
      assertOk(await refund(server, payfacReference, 1000));
      await assert.rejects(
        sql`UPDATE refund_balances SET reserved_amount = amount WHERE payfac_reference = ${payfacReference}`.execute(server.db),
        /refunds_within_payment/,
      );
    });

    it("10 disables of one card at once: all succeed, one TokenDisabled", async () => {
      const token = await saveCard(server);
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, i) => instance(i).api("POST", "/api/v1/tokens/disable", { tokenValue: token })),
      );
      for (const r of responses) assertOk(r);
      const events = (await outboxMessages(server)).filter(
        (m) => m.eventType === "TokenDisabled" && m.payload.additionalData.token === token,
      );
      assert.equal(events.length, 1);
    });
  });
}
