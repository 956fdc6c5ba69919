// The shared API limit claimed in batches (docs/decisions.md#rate-limits), on a real database: two limiters stand for two
// instances' memories. Whatever the concurrency, they never admit more than the limit together;
// a busy key costs far fewer statements than requests; small limits never claim ahead.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Database } from "../../src/db/connect.ts";
import { type Admission, SharedApiLimit } from "../../src/http/shared-api-limit.ts";
import { type TestDatabase, testBackends } from "../support/databases.ts";

/** The database handle, and a count of the statements sent through it. */
function counted(db: Database): { db: Database; statements: () => number } {
  let statements = 0;
  const wrapped = db.withPlugin({
    transformQuery: (args) => {
      statements++;
      return args.node;
    },
    transformResult: async (args) => args.result,
  });
  return { db: wrapped, statements: () => statements };
}

/** The windows are whole clock minutes: start a test early in one, so it cannot roll over midway. */
async function earlyInAMinute() {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 15_000) await new Promise((resolve) => setTimeout(resolve, left + 250));
}

const admittedCount = (answers: Admission[]) => answers.filter((answer) => answer.admitted).length;

for (const backend of testBackends()) {
  describe(`the shared API limit, claimed in batches (${backend.name})`, () => {
    let database: TestDatabase;
    before(async () => {
      database = await backend.open();
    });
    after(async () => database.destroy());

    test("a busy key: every request admitted, far fewer statements than requests, remaining counts down", async () => {
      await earlyInAMinute();
      const { db, statements } = counted(database.db);
      const limit = new SharedApiLimit(db, 10_000);
      const answers: Admission[] = [];
      for (let i = 0; i < 300; i++) answers.push(await limit.admit("api:busy"));
      assert.equal(admittedCount(answers), 300);
      assert.ok(statements() < 60, `${statements()} statements for 300 requests`);
      const remaining = answers.map((answer) => (answer.admitted ? answer.remaining : -1));
      assert.ok(
        remaining.every((value, i) => i === 0 || value < remaining[i - 1]!),
        "each answer shows fewer remaining than the one before",
      );
      assert.ok(remaining.at(-1)! >= 10_000 - 300 - 500, `remaining ${remaining.at(-1)}`);
    });

    test("two instances at once: never more than the limit together, and only a little less", async () => {
      await earlyInAMinute();
      const perMinute = 200;
      const instances = [new SharedApiLimit(database.db, perMinute), new SharedApiLimit(database.db, perMinute)];
      // Waves of concurrent requests, so each instance's recent traffic makes it claim ahead.
      const answers: Admission[] = [];
      for (let wave = 0; wave < 30; wave++) {
        answers.push(...(await Promise.all(Array.from({ length: 20 }, (_, i) => instances[i % 2]!.admit("api:shared")))));
      }
      const admitted = admittedCount(answers);
      assert.ok(admitted <= perMinute, `${admitted} admitted over a limit of ${perMinute}`);
      // What an instance claimed ahead and did not use is lost: at most 5% of the limit each.
      assert.ok(admitted >= perMinute - 2 * perMinute * 0.05, `${admitted} admitted`);
      for (const instance of instances) {
        const refused = await instance.admit("api:shared");
        if (refused.admitted) continue; // it still held a unit claimed ahead
        assert.ok(refused.resetMs > 0 && refused.resetMs <= 60_000);
      }
    });

    test("a small limit never claims ahead: one instance's answers are exact", async () => {
      await earlyInAMinute();
      const { db, statements } = counted(database.db);
      const limit = new SharedApiLimit(db, 10);
      const answers: Admission[] = [];
      for (let i = 0; i < 12; i++) answers.push(await limit.admit("api:small"));
      assert.deepEqual(
        answers.map((answer) => (answer.admitted ? answer.remaining : "refused")),
        [9, 8, 7, 6, 5, 4, 3, 2, 1, 0, "refused", "refused"],
      );
      assert.equal(statements(), 10, "one claim per admitted request; once the count reaches the limit, refused from memory");
    });
  });
}
