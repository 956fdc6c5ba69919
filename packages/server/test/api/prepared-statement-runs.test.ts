// How a declared statement (db/prepared.ts) behaves around transactions and errors, on both
// databases: on PGlite it is a named statement of the one session sent straight to the backend
//, outside Kysely's PGlite connection, so these are the cases where that could differ.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { preparedStatement, runPrepared } from "../../src/db/prepared.ts";
import { isUniqueViolation } from "../../src/db/unique-violation.ts";
import { type TestDatabase, testBackends } from "../support/databases.ts";

const INSERT_MERCHANT = preparedStatement("test_insert_merchant", "INSERT INTO merchants (id, name) VALUES ($1, $2)");
const READ_MERCHANT = preparedStatement(
  "test_read_merchant",
  "SELECT id, name, created_at, $2::bigint AS number, $3::text[] AS list FROM merchants WHERE id = $1",
);

for (const backend of testBackends()) {
  describe(`a declared statement's runs (${backend.name})`, () => {
    let database: TestDatabase;
    const names = async () => (await database.db.selectFrom("merchants").select("id").orderBy("id").execute()).map((r) => r.id);

    before(async () => {
      database = await backend.open();
    });
    after(async () => {
      await database.destroy();
    });

    it("binds values by the types the server inferred and parses the row as other queries do", async () => {
      const inserted = await runPrepared(database.db, INSERT_MERCHANT, ["mer_a", "Á"]);
      assert.equal(inserted.numAffectedRows, 1n);
      const { rows } = await runPrepared<{ id: string; name: string; created_at: Date; number: number; list: string[] }>(
        database.db,
        READ_MERCHANT,
        ["mer_a", 42, ["x", "y, z"]],
      );
      assert.equal(rows.length, 1);
      assert.deepEqual([rows[0]!.id, rows[0]!.name, rows[0]!.number, rows[0]!.list], ["mer_a", "Á", 42, ["x", "y, z"]]);
      assert.ok(rows[0]!.created_at instanceof Date);
      const same = await database.db.selectFrom("merchants").select(["id", "name", "created_at"]).executeTakeFirstOrThrow();
      assert.deepEqual(same, { id: rows[0]!.id, name: rows[0]!.name, created_at: rows[0]!.created_at });
      assert.deepEqual((await runPrepared(database.db, READ_MERCHANT, ["mer_none", null, null])).rows, []);
    });

    it("rolls back with the transaction it ran in, together with Kysely's own statements", async () => {
      await assert.rejects(
        database.db.transaction().execute(async (trx) => {
          await runPrepared(trx, INSERT_MERCHANT, ["mer_b", "B"]);
          await trx.insertInto("merchants").values({ id: "mer_c", name: "C" }).execute();
          assert.equal((await runPrepared(trx, READ_MERCHANT, ["mer_b", 1, []])).rows.length, 1, "seen inside");
          throw new Error("undo");
        }),
        /undo/,
      );
      assert.deepEqual(await names(), ["mer_a"]);
      await database.db.transaction().execute(async (trx) => {
        await runPrepared(trx, INSERT_MERCHANT, ["mer_b", "B"]);
        await trx.insertInto("merchants").values({ id: "mer_c", name: "C" }).execute();
      });
      assert.deepEqual(await names(), ["mer_a", "mer_b", "mer_c"]);
    });

    it("fails with the database's error code and leaves the session usable, in and out of a transaction", async () => {
      await assert.rejects(runPrepared(database.db, INSERT_MERCHANT, ["mer_a", "again"]), isUniqueViolation);
      await assert.rejects(
        database.db.transaction().execute(async (trx) => {
          await trx.insertInto("merchants").values({ id: "mer_d", name: "D" }).execute();
          await runPrepared(trx, INSERT_MERCHANT, ["mer_a", "again"]);
        }),
        isUniqueViolation,
      );
      assert.deepEqual(await names(), ["mer_a", "mer_b", "mer_c"], "the transaction's other insert is gone too");
      assert.equal((await runPrepared(database.db, INSERT_MERCHANT, ["mer_d", "D"])).numAffectedRows, 1n);
    });

    it("runs one caller at a time when many run at once", async () => {
      const ids = Array.from({ length: 30 }, (_, i) => `mer_many${String(i).padStart(2, "0")}`);
      await Promise.all(
        ids.map((id, i) =>
          i % 3 === 0
            ? database.db.transaction().execute(async (trx) => {
                await runPrepared(trx, INSERT_MERCHANT, [id, "many"]);
                await runPrepared(trx, READ_MERCHANT, [id, i, []]);
              })
            : runPrepared(database.db, INSERT_MERCHANT, [id, "many"]),
        ),
      );
      assert.deepEqual(
        (await names()).filter((id) => id.startsWith("mer_many")),
        ids,
      );
    });

    it("is prepared again after the session forgot it", async () => {
      if (backend.name === "postgres") return; // a pool's connections each keep their own
      await sql`DEALLOCATE ALL`.execute(database.db);
      await assert.rejects(runPrepared(database.db, READ_MERCHANT, ["mer_a", 1, []]), { code: "26000" });
      assert.equal((await runPrepared(database.db, READ_MERCHANT, ["mer_a", 1, []])).rows.length, 1);
    });
  });
}
