// Issue #12 acceptance 2 in the suite: the fault run (fault-run.ts) must pass. About a minute on
// PostgreSQL; `npm run faults` runs the same and prints its summary.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runFaults } from "./fault-run.ts";

test("connections terminated, then the database refusing connections for 10 s, under load on two instances", {
  skip: process.env.TEST_DATABASE_URL ? false : "TEST_DATABASE_URL is not set",
  timeout: 240_000,
}, async () => {
  const result = await runFaults({ adminUrl: process.env.TEST_DATABASE_URL! });
  assert.ok(result.ok, result.summary);
});
