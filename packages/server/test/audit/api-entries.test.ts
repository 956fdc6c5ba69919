// Every change an API key makes leaves exactly one audit entry (docs/portal.md#audit-log), on both
// databases, over real HTTP: who (the key's id and prefix), what, which object, when, from which
// address, and small details; a shopper's payment leaves none. Each action is run and the entries
// it added are read straight from the table.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { saveCard, sellLink } from "../support/after-sale.ts";
import { auditRowsOf, type StoredAuditRow } from "../support/audit.ts";
import { adjust, capture, paidSession, reverse } from "../support/capture.ts";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { createSession } from "../support/sessions.ts";
import { createLink } from "../support/shopper.ts";

for (const backend of testBackends()) {
  describe(`audit entries of API-key changes (${backend.name})`, () => {
    let server: TestServer;
    let key: { id: string; prefix: string };

    before(async () => {
      server = await startTestServer({ backend });
      const row = await server.db
        .selectFrom("api_keys")
        .select(["id", "key_prefix"])
        .where("merchant_id", "=", server.merchantId)
        .executeTakeFirstOrThrow();
      key = { id: row.id, prefix: row.key_prefix };
      assert.equal(key.prefix, server.apiKey.slice(0, 8));
    });
    after(() => server.close());

    /** The entries `action` added, after checking each names this key and this address. */
    async function entriesOf(action: () => Promise<unknown>): Promise<StoredAuditRow[]> {
      const before = (await auditRowsOf(server.db, server.merchantId)).length;
      const startedAt = Date.now();
      await action();
      const added = (await auditRowsOf(server.db, server.merchantId)).slice(before);
      for (const entry of added) {
        assert.equal(entry.actor_kind, "api-key");
        assert.equal(entry.actor_id, key.id);
        assert.equal(entry.actor_label, key.prefix);
        assert.equal(entry.address, "127.0.0.1");
        assert.ok(Math.abs(entry.created_at.getTime() - startedAt) < 60_000, "when: the time of the request");
      }
      return added;
    }

    const only = (entries: StoredAuditRow[]) => {
      assert.equal(entries.length, 1, JSON.stringify(entries.map((e) => e.action)));
      return entries[0]!;
    };

    test("link create, update and disable", async () => {
      let reference = "";
      const created = only(await entriesOf(async () => (reference = await createLink(server, { amount: 2500, items: [] }))));
      assert.deepEqual([created.action, created.object_type, created.object_id], ["link.create", "payment-link", reference]);
      assert.deepEqual(created.details, { type: "PayByLink", amount: 2500, currency: "ISK" });

      const updated = only(
        await entriesOf(async () => {
          const response = await server.api("POST", "/api/v1/paymentlinks/update", {
            paymentLinkReference: reference,
            description: "Winter sale",
            maxSalesCount: 4,
          });
          assert.equal(response.status, 200, JSON.stringify(response.body));
        }),
      );
      assert.deepEqual([updated.action, updated.object_id], ["link.update", reference]);
      assert.deepEqual(updated.details, { fields: ["description", "maxSalesCount"] });

      const disabled = only(
        await entriesOf(async () => {
          const response = await server.api("POST", "/api/v1/paymentlinks/disable", { paymentLinkReference: reference });
          assert.equal(response.status, 200, JSON.stringify(response.body));
        }),
      );
      assert.deepEqual([disabled.action, disabled.object_id], ["link.disable", reference]);
    });

    test("a link that is not the merchant's changes nothing and records nothing", async () => {
      const added = await entriesOf(async () => {
        const response = await server.api("POST", "/api/v1/paymentlinks/disable", { paymentLinkReference: "NOSUCHLINK000000" });
        assert.equal(response.status, 404);
      });
      assert.deepEqual(added, []);
    });

    test("a link created under an Idempotency-Key is recorded once, however often it is sent", async () => {
      const headers = { "idempotency-key": "audit-create-1" };
      const added = await entriesOf(async () => {
        const first = await createLink(server, { amount: 100, items: [] }, headers);
        const again = await createLink(server, { amount: 100, items: [] }, headers);
        assert.equal(again, first);
      });
      assert.equal(only(added).action, "link.create");
    });

    test("session create; the shopper's payment adds nothing", async () => {
      let checkoutReference = "";
      const created = only(
        await entriesOf(
          async () => ({ checkoutReference } = await createSession(server, { reference: "audit-1", amount: 1000, items: [] })),
        ),
      );
      assert.deepEqual([created.action, created.object_type, created.object_id], ["session.create", "session", checkoutReference]);
      assert.equal(created.details.orderReference, "audit-1");
      let linkReference = "";
      const sold = await entriesOf(async () => ({ linkReference } = await sellLink(server, 3000)));
      assert.deepEqual(
        sold.map((e) => [e.action, e.object_id]),
        [["link.create", linkReference]],
        "the sale through the checkout is not audited",
      );
    });

    test("refund and reverse name the payment, the amount and the modification", async () => {
      let payfacReference = "";
      await entriesOf(async () => ({ payfacReference } = await sellLink(server, 10000)));
      let refundReference = "";
      const refunded = only(
        await entriesOf(async () => {
          const response = await server.api("POST", "/api/v1/modification/refund", {
            payfacReference,
            amount: 4000,
            currency: "ISK",
            refundReason: "RETURN",
          });
          assert.equal(response.status, 200, JSON.stringify(response.body));
          refundReference = response.body.payfacReference;
        }),
      );
      assert.deepEqual([refunded.action, refunded.object_type, refunded.object_id], ["payment.refund", "payment", payfacReference]);
      assert.deepEqual(refunded.details, { refund: refundReference, amount: 4000, currency: "ISK" });

      const reversed = only(
        await entriesOf(async () => {
          const response = await server.api("POST", "/api/v1/modification/reverse", { payfacReference });
          assert.equal(response.status, 200, JSON.stringify(response.body));
        }),
      );
      assert.deepEqual([reversed.action, reversed.object_id], ["payment.reverse", payfacReference]);
      assert.equal(reversed.details.amount, 6000, "the rest is what a reversal reserves");

      const refused = await entriesOf(async () => {
        const response = await server.api("POST", "/api/v1/modification/refund", { payfacReference, amount: 1, currency: "ISK" });
        assert.ok(response.status >= 400 && response.status < 500, `a refund of a reversed payment is refused (${response.status})`);
      });
      assert.deepEqual(refused, [], "a refund refused before its reservation records nothing");
    });

    test("capture and adjust of manual-capture payments", async () => {
      let payfacReference = "";
      await entriesOf(async () => ({ payfacReference } = await paidSession(server, { reference: "audit-cap", isManualCapture: true })));
      const captured = only(
        await entriesOf(async () => {
          const response = await capture(server, payfacReference, 100000);
          assert.equal(response.status, 200, JSON.stringify(response.body));
        }),
      );
      assert.deepEqual([captured.action, captured.object_id], ["payment.capture", payfacReference]);
      assert.equal(captured.details.amount, 100000);

      let preAuth = "";
      await entriesOf(
        async () =>
          ({ payfacReference: preAuth } = await paidSession(server, { reference: "audit-adj", isManualCapture: true, isPreAuth: true })),
      );
      const adjusted = only(
        await entriesOf(async () => {
          const response = await adjust(server, preAuth, 600000);
          assert.equal(response.status, 200, JSON.stringify(response.body));
        }),
      );
      assert.deepEqual([adjusted.action, adjusted.object_id, adjusted.details.amount], ["payment.adjust", preAuth, 600000]);
      const reversed = only(await entriesOf(async () => assert.equal((await reverse(server, preAuth)).status, 200)));
      assert.equal(reversed.action, "payment.reverse");
    });

    test("token charge and token disable", async () => {
      let token = "";
      await entriesOf(async () => (token = await saveCard(server)));
      let checkoutReference = "";
      const charged = only(
        await entriesOf(async () => {
          const response = await server.api("POST", "/api/v1/payment", {
            terminalIdentifier: server.terminalIdentifier,
            amount: 129900,
            currency: "ISK",
            reference: "order-77",
            tokenDetails: { tokenValue: token, recurringProcessingModel: "Subscription" },
          });
          assert.equal(response.status, 200, JSON.stringify(response.body));
          checkoutReference = response.body.checkoutReference;
        }),
      );
      assert.deepEqual([charged.action, charged.object_type, charged.object_id], ["token.charge", "payment", checkoutReference]);
      assert.deepEqual(charged.details, { token, last4: "1111", amount: 129900, currency: "ISK", reference: "order-77" });

      const disabled = only(
        await entriesOf(async () => assert.equal((await server.api("POST", "/api/v1/tokens/disable", { tokenValue: token })).status, 200)),
      );
      assert.deepEqual([disabled.action, disabled.object_type, disabled.object_id], ["token.disable", "token", token]);
      const again = only(
        await entriesOf(async () =>
          assert.equal((await server.api("POST", "/api/v1/payment/disable-token", { tokenValue: token })).status, 200),
        ),
      );
      assert.deepEqual(disabled.details, { last4: "1111", alreadyDisabled: false });
      assert.deepEqual(again.details, { last4: "1111", alreadyDisabled: true });
    });
  });
}
