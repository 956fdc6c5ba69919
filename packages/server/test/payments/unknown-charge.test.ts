// A saved-card charge whose outcome Paylink never learns (docs/api.md#charge-a-saved-card): never
// reported as Authorised, never a payment; reversed at the processor at once, or by the reconciler
// when the processor cannot confirm the reversal yet.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import type { AuthorizeResult, TokenChargeRequest } from "../../src/payments/processor.ts";
import { SandboxProcessor } from "../../src/payments/sandbox.ts";
import { reconcileAfterSale } from "../../src/services/reconcile-after-sale.ts";
import { afterSaleDeps, charge, saveCard } from "../support/after-sale.ts";
import { testBackends } from "../support/databases.ts";
import { assertError, assertOk } from "../support/fixtures.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { addWebhookEndpoint, outboxMessages } from "../support/outbox.ts";

/** Charges the card at the sandbox and then loses the answer; reversals can be made to fail too. */
class LostAnswers extends SandboxProcessor {
  loseCharges = false;
  failReversals = false;
  override async chargeToken(request: TokenChargeRequest): Promise<AuthorizeResult> {
    const result = await super.chargeToken(request);
    if (this.loseCharges) throw new Error("read ECONNRESET");
    return result;
  }
  override async reverseCharge(checkoutReference: string): Promise<void> {
    if (this.failReversals) throw new Error("connect ECONNREFUSED");
    return super.reverseCharge(checkoutReference);
  }
}

for (const backend of testBackends()) {
  describe(`saved-card charges with an unknown outcome (${backend.name})`, () => {
    let server: TestServer;
    const processor = new LostAnswers();

    before(async () => {
      server = await startTestServer({ backend, afterSaleProcessor: processor });
      await addWebhookEndpoint(server);
    });
    after(() => server?.close());

    const charges = (token: string) => server.db.selectFrom("token_payments").selectAll().where("token", "=", token).execute();

    it("a lost answer is 503 5002, reversed at the processor at once, recorded failed, no webhook; a retry charges anew", async () => {
      const token = await saveCard(server);
      processor.loseCharges = true;
      const lost = await charge(server, token, {}, { "idempotency-key": `lost-${backend.name}` });
      processor.loseCharges = false;
      assertError(lost, 503, "5002", "reversed");
      assert.equal(lost.headers.get("retry-after"), "30");
      const [row] = await charges(token);
      assert.equal(row!.state, "failed");
      assert.equal(row!.payfac_reference, null);
      assert.ok(processor.reversed.has(row!.id), "reversed at the processor by its checkoutReference");
      const messages = await outboxMessages(server);
      assert.equal(messages.filter((m) => m.payload.checkoutReference === row!.id).length, 0);

      const retry = await charge(server, token, {}, { "idempotency-key": `lost-${backend.name}` });
      assertOk(retry);
      assert.equal(retry.body.resultCode, "Authorised", "the failed attempt released its key: the retry runs");
    });

    it("when the reversal cannot be confirmed either, the charge stays pending and the reconciler reverses it later", async () => {
      const token = await saveCard(server);
      processor.loseCharges = true;
      processor.failReversals = true;
      const lost = await charge(server, token);
      processor.loseCharges = false;
      processor.failReversals = false;
      assertError(lost, 503, "5002", "will be reversed");
      const [pending] = await charges(token);
      assert.equal(pending!.state, "pending");
      // Not stale yet: the sweep leaves a charge that may still be in flight alone.
      assert.equal((await reconcileAfterSale(afterSaleDeps(server, processor))).chargesReversed, 0);
      await sql`UPDATE token_payments SET created_at = now() - interval '1 hour' WHERE id = ${pending!.id}`.execute(server.db);
      const sweep = await reconcileAfterSale(afterSaleDeps(server, processor));
      assert.equal(sweep.chargesReversed, 1);
      const [reversed] = await charges(token);
      assert.equal(reversed!.state, "failed");
      assert.ok(processor.reversed.has(pending!.id));
    });
  });
}
