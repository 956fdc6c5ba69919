// Captures that race (docs/api.md#capture-and-adjust): each reserves its amount under the payment's
// balance row before the processor is called, so requests fired at once — on two Paylink instances
// sharing PostgreSQL, as behind a load balancer — never capture more than was authorised, and a
// reversal racing them never releases money a capture is taking.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { capture, paidSession, readPayment, reverse } from "../support/capture.ts";
import { testBackends } from "../support/databases.ts";
import { assertError } from "../support/fixtures.ts";
import { type ApiResponse, startSecondInstance, startTestServer, type TestServer } from "../support/harness.ts";
import { addWebhookEndpoint, outboxMessages } from "../support/outbox.ts";

for (const backend of testBackends()) {
  const twoInstances = backend.name === "postgres";
  describe(`captures under concurrency (${backend.name}${twoInstances ? ", two instances" : ""})`, () => {
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

    /** The 200s; every other answer is "too much" (2019) or "fully captured" (3003). */
    const succeeded = (responses: ApiResponse[]) => {
      for (const r of responses.filter((r) => r.status !== 200)) {
        if (r.status === 409) assertError(r, 409, "3003");
        else assertError(r, 400, "2019");
      }
      return responses.filter((r) => r.status === 200);
    };

    it("20 captures of a quarter each fired at once: exactly four succeed, four Capture webhooks, never more than authorised", async () => {
      const { payfacReference } = await paidSession(server, { reference: "race-1", isManualCapture: true, amount: 400000, items: [] });
      const started = Date.now();
      const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => capture(instance(i), payfacReference, 100000)));
      const elapsed = Date.now() - started;
      const ok = succeeded(responses);
      assert.equal(ok.length, 4, `exactly four captures: ${responses.map((r) => r.status).join(",")}`);
      const balance = await server.db
        .selectFrom("refund_balances")
        .selectAll()
        .where("payfac_reference", "=", payfacReference)
        .executeTakeFirstOrThrow();
      assert.deepEqual([Number(balance.captured_amount), Number(balance.capture_reserved_amount)], [400000, 0]);
      const rows = await server.db
        .selectFrom("captures")
        .select(["payfac_reference", "state"])
        .where("original_payfac_reference", "=", payfacReference)
        .execute();
      assert.deepEqual(
        rows.map((row) => row.state),
        ["approved", "approved", "approved", "approved"],
      );
      const events = (await outboxMessages(server)).filter(
        (m) => m.eventType === "Capture" && m.payload.additionalData.originalPayfacReference === payfacReference,
      );
      assert.deepEqual(events.map((m) => m.payload.payfacReference).sort(), ok.map((r) => r.body.payfacReference).sort());
      assert.equal((await readPayment(server, payfacReference)).capturedAmount, 400000);
      console.log(`# ${backend.name}: 20 concurrent captures answered in ${elapsed} ms`);
    });

    it("captures of uneven amounts at once: their sum never passes the authorisation", async () => {
      const { payfacReference } = await paidSession(server, { reference: "race-2", isManualCapture: true, amount: 100000, items: [] });
      const amounts = [30000, 70000, 50000, 20000, 40000, 10000, 60000, 30000, 10000, 90000, 20000, 40000];
      const responses = await Promise.all(amounts.map((amount, i) => capture(instance(i), payfacReference, amount)));
      const ok = succeeded(responses);
      const sum = responses.reduce((total, r, i) => total + (r.status === 200 ? amounts[i]! : 0), 0);
      assert.ok(sum <= 100000, `captured ${sum}`);
      const read = await readPayment(server, payfacReference);
      assert.equal(read.capturedAmount, sum);
      assert.equal(read.captures.length, ok.length);
    });

    it("captures and a reversal at once: everything captured or released exactly once", async () => {
      const { payfacReference } = await paidSession(server, { reference: "race-3", isManualCapture: true, amount: 200000, items: [] });
      const responses = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          i === 5 ? reverse(instance(i), payfacReference) : capture(instance(i), payfacReference, 50000),
        ),
      );
      for (const r of responses) assert.ok([200, 400, 409].includes(r.status), `status ${r.status}`);
      const balance = await server.db
        .selectFrom("refund_balances")
        .selectAll()
        .where("payfac_reference", "=", payfacReference)
        .executeTakeFirstOrThrow();
      const captured = Number(balance.captured_amount);
      assert.ok(captured <= 200000);
      assert.equal(Number(balance.capture_reserved_amount), 0);
      const reversal = responses[5]!;
      if (reversal.status === 200) {
        // The reversal gave back everything: the captured part refunded, the rest released.
        assert.ok(balance.released_at !== null || captured === 200000);
        assert.equal(Number(balance.refunded_amount), 200000);
      }
    });

    it("the database itself refuses captures beyond the authorisation (the CHECK backs up the lock)", async () => {
      const { payfacReference } = await paidSession(server, { reference: "race-4", isManualCapture: true, amount: 20000, items: [] });
      assert.equal((await capture(server, payfacReference, 1000)).status, 200);
      await assert.rejects(
        sql`UPDATE refund_balances SET capture_reserved_amount = amount WHERE payfac_reference = ${payfacReference}`.execute(server.db),
        /captures_within_authorisation/,
      );
    });
  });
}
