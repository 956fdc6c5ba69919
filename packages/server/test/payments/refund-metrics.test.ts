// A refund stuck Pending shows on /metrics (docs/operations.md#metrics): how many refunds wait for
// the processor's final answer and how old the oldest is, from the database, so an alert fires
// however many instances there are; both fall back to 0 once the reconciler settles the refund.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import type { ModificationRequest, ModificationResult } from "../../src/payments/processor.ts";
import { SandboxProcessor } from "../../src/payments/sandbox.ts";
import { reconcileAfterSale } from "../../src/services/reconcile-after-sale.ts";
import { afterSaleDeps, refund, sellLink } from "../support/after-sale.ts";
import { testBackends } from "../support/databases.ts";
import { assertOk } from "../support/fixtures.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";

/** The sandbox, except that refunds can lose their answer (the outcome unknown: the refund stays pending). */
class LostRefundAnswers extends SandboxProcessor {
  loseAnswers = false;
  override async refund(request: ModificationRequest): Promise<ModificationResult> {
    if (this.loseAnswers) throw new Error("socket hang up");
    return super.refund(request);
  }
}

for (const backend of testBackends()) {
  describe(`pending refunds on /metrics (${backend.name})`, () => {
    let server: TestServer;
    const processor = new LostRefundAnswers();
    before(async () => {
      server = await startTestServer({ backend, afterSaleProcessor: processor });
    });
    after(() => server?.close());

    const gauges = async () => {
      const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
      const value = (name: string) => {
        const line = text.split("\n").find((l) => l.startsWith(`${name} `));
        assert.ok(line, `${name} is reported`);
        return Number(line.split(" ")[1]);
      };
      return { pending: value("paylink_refunds_pending"), oldest: value("paylink_refund_oldest_pending_seconds") };
    };

    it("counts refunds whose answer was lost and ages the oldest; settled, both are 0 again", async () => {
      assert.deepEqual(await gauges(), { pending: 0, oldest: 0 });
      const { payfacReference } = await sellLink(server, 10000);
      processor.loseAnswers = true;
      assertOk(await refund(server, payfacReference, 3000));
      assertOk(await refund(server, payfacReference, 2000));
      const stuck = await gauges();
      assert.equal(stuck.pending, 2);
      assert.ok(stuck.oldest >= 0 && stuck.oldest < 600, `a fresh refund's age: ${stuck.oldest}`);

      // As if the processor had not answered for an hour (the reconciler asks again meanwhile, in vain).
      await sql`UPDATE refunds SET created_at = now() - interval '1 hour', next_attempt_at = now() - interval '1 minute'
        WHERE original_payfac_reference = ${payfacReference}`.execute(server.db);
      const old = await gauges();
      assert.equal(old.pending, 2);
      assert.ok(old.oldest >= 3600, `the oldest pending refund is an hour old: ${old.oldest}`);

      processor.loseAnswers = false;
      assert.equal((await reconcileAfterSale(afterSaleDeps(server, processor))).refundsSettled, 2);
      assert.deepEqual(await gauges(), { pending: 0, oldest: 0 });
    });
  });
}
