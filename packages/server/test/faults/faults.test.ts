// The fault matrix in the suite (fault-run.ts) must pass: about 60 s on PostgreSQL. `npm run
// faults` runs the same and prints its table.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runFaults } from "./fault-run.ts";

test("the fault matrix: each database fault under mixed load on two instances, no 500, nothing lost", {
  skip: process.env.TEST_DATABASE_URL ? false : "TEST_DATABASE_URL is not set",
  timeout: 240_000,
}, async () => {
  const result = await runFaults({ adminUrl: process.env.TEST_DATABASE_URL! });
  assert.ok(result.ok, result.summary);
});
