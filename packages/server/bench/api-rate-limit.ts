// The cost of counting the API limit in PostgreSQL (issue #12 finding 8, docs/decisions.md#rate-limits): autocannon on
// GET /api/v1/paymentlinks/{reference} of one in-process server on a fresh PostgreSQL database,
// with the limit counted in memory and in the database, alternating, three rounds each.
//
//   TEST_DATABASE_URL=postgres://… npx tsx packages/server/bench/api-rate-limit.ts [seconds=8] [connections=10]

import autocannon from "autocannon";
import { buildApp } from "../src/app.ts";
import { openDatabase } from "../src/db/connect.ts";
import { countRequest } from "../src/db/rate-counters-repository.ts";
import { createPostgresDatabase } from "../test/support/databases.ts";
import { addMerchantFixture } from "../test/support/harness.ts";
import { testKeyring } from "../test/support/keyring.ts";
import { createLink } from "../test/support/shopper.ts";

const seconds = Number(process.argv[2] ?? 8);
const connections = Number(process.argv[3] ?? 10);
const adminUrl = process.env.TEST_DATABASE_URL;
if (!adminUrl) throw new Error("set TEST_DATABASE_URL");

const database = await createPostgresDatabase(adminUrl);
const handle = await openDatabase({ kind: "postgres", url: database.url });
const merchant = await addMerchantFixture(handle.db);
const results: Record<string, number[]> = { memory: [], database: [] };
const latencies: Record<string, number[]> = { memory: [], database: [] };
try {
  for (let round = 0; round < 3; round++) {
    for (const mode of ["memory", "database"] as const) {
      const app = await buildApp({
        db: handle.db,
        publicBaseUrl: "http://127.0.0.1",
        keyring: testKeyring(),
        rateLimits: { apiPerMinute: 1_000_000_000, checkoutFailures: 0, checkoutWindowMs: 1 },
        sharedRateLimit: mode === "database",
      });
      const url = await app.listen({ port: 0, host: "127.0.0.1" });
      const reference = await createLink({ baseUrl: url, apiKey: merchant.apiKey, terminalIdentifier: merchant.terminalIdentifier });
      const result = await autocannon({
        url: `${url}/api/v1/paymentlinks/${reference}`,
        headers: { "x-api-key": merchant.apiKey },
        connections,
        duration: seconds,
      });
      results[mode]!.push(result.requests.average);
      latencies[mode]!.push(result.latency.p99);
      process.stdout.write(
        `round ${round + 1} ${mode.padEnd(8)} ${result.requests.average.toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}\n`,
      );
      await app.close();
    }
  }
  // The upsert alone, one at a time: what each API request waits for on top of its own work.
  const started = performance.now();
  for (let i = 0; i < 2000; i++) await countRequest(handle.db, "api:bench", 60);
  process.stdout.write(`one upsert, sequential: ${((performance.now() - started) / 2000).toFixed(3)} ms on average (2000 calls)\n`);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  process.stdout.write(`median req/s: memory ${median(results.memory!).toFixed(0)}, database ${median(results.database!).toFixed(0)}\n`);
} finally {
  await handle.close();
  await database.drop();
}
