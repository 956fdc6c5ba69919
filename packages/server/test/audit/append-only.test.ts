// The audit log can't be edited (migration 0032): on both databases an UPDATE or a DELETE of an
// entry is refused by the table's trigger and the entry stays as written, whoever sends it.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { insertAuditEntry } from "../../src/db/audit-repository.ts";
import { createMerchant } from "../../src/db/merchants-repository.ts";
import { userActor } from "../../src/domain/audit/actor.ts";
import { auditRowsOf } from "../support/audit.ts";
import { type TestDatabase, testBackends } from "../support/databases.ts";

for (const backend of testBackends()) {
  describe(`the audit log is append-only (${backend.name})`, () => {
    let database: TestDatabase;
    let merchantId: string;

    before(async () => {
      database = await backend.open();
      ({ merchantId } = await createMerchant(database.db, "Audited"));
      await insertAuditEntry(database.db, {
        merchantId,
        actor: userActor({ userId: "usr_1", email: "anna@example.com" }, "198.51.100.4"),
        action: "payment.refund",
        object: { type: "payment", id: "PAYFAC0000000001" },
        details: { amount: 5000, currency: "ISK" },
      });
    });
    after(() => database.destroy());

    test("an UPDATE is refused and changes nothing", async () => {
      await assert.rejects(sql`UPDATE audit_log SET actor_label = 'someone@else.example'`.execute(database.db), /append-only/);
      await assert.rejects(
        database.db.updateTable("audit_log").set({ action: "link.create" }).where("merchant_id", "=", merchantId).execute(),
        /append-only/,
      );
      const [row] = await auditRowsOf(database.db, merchantId);
      assert.equal(row?.actor_label, "anna@example.com");
      assert.equal(row?.action, "payment.refund");
    });

    test("a DELETE is refused and the entry stays", async () => {
      await assert.rejects(sql`DELETE FROM audit_log WHERE merchant_id = ${merchantId}`.execute(database.db), /append-only/);
      await assert.rejects(database.db.deleteFrom("audit_log").execute(), /append-only/);
      const rows = await auditRowsOf(database.db, merchantId);
      assert.equal(rows.length, 1);
      assert.deepEqual(rows[0]?.details, { amount: 5000, currency: "ISK" });
      assert.equal(rows[0]?.address, "198.51.100.4");
    });

    test("a new entry can still be added beside it", async () => {
      await insertAuditEntry(database.db, {
        merchantId,
        actor: userActor({ userId: "usr_1", email: "anna@example.com" }, "198.51.100.4"),
        action: "sign-in",
        object: { type: "user", id: "usr_1" },
      });
      assert.deepEqual(
        (await auditRowsOf(database.db, merchantId)).map((r) => r.action),
        ["payment.refund", "sign-in"],
      );
    });
  });
}
