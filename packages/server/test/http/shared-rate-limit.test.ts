// Issue #12 finding 8 (the API part): the API limit per key is shared by every instance on one
// PostgreSQL, so two instances behind a load balancer allow the limit once, not twice. On the
// embedded database the same counter table serves the single instance.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { DEFAULT_RATE_LIMITS } from "../../src/http/rate-limit.ts";
import { testBackends } from "../support/databases.ts";
import { addMerchantFixture, startSecondInstance, startTestServer, type TestServer } from "../support/harness.ts";

const LIMIT = 6;
const rateLimits = { ...DEFAULT_RATE_LIMITS, apiPerMinute: LIMIT, checkoutFailures: 0 };

/** The windows are whole clock minutes: start a test early in one, so it cannot roll over midway. */
async function earlyInAMinute() {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 15_000) await new Promise((resolve) => setTimeout(resolve, left + 250));
}

async function list(server: TestServer, apiKey = server.apiKey) {
  const response = await fetch(`${server.baseUrl}/api/v1/paymentlinks?pageSize=1`, { headers: { "x-api-key": apiKey } });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

for (const backend of testBackends()) {
  describe(`the API limit counted in the database (${backend.name})`, () => {
    const servers: TestServer[] = [];
    before(async () => {
      const first = await startTestServer({ backend, rateLimits, sharedRateLimit: true });
      servers.push(first);
      if (backend.name === "postgres") servers.push(await startSecondInstance(first, { rateLimits, sharedRateLimit: true }));
    });
    after(async () => {
      for (const server of servers.reverse()) await server.close();
    });

    test(`${LIMIT} requests in a minute over all instances, then 429 3002 with Retry-After on every instance`, async () => {
      await earlyInAMinute();
      const statuses: number[] = [];
      for (let i = 0; i < LIMIT; i++) {
        const response = await list(servers[i % servers.length]!);
        statuses.push(response.status);
        assert.equal(response.headers.get("x-ratelimit-limit"), String(LIMIT));
        assert.equal(response.headers.get("x-ratelimit-remaining"), String(LIMIT - 1 - i));
        const reset = Number(response.headers.get("x-ratelimit-reset"));
        assert.ok(reset >= 0 && reset <= 60, `reset ${reset}`);
      }
      assert.deepEqual(statuses, Array(LIMIT).fill(200));
      for (const server of servers) {
        const limited = await list(server);
        assert.equal(limited.status, 429);
        assert.equal(limited.body.errorCode, "3002");
        assert.match(limited.body.errorMessage, new RegExp(`at most ${LIMIT} per minute`));
        const retryAfter = Number(limited.headers.get("retry-after"));
        assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      }
      const other = await addMerchantFixture(servers[0]!.database.db);
      assert.equal((await list(servers.at(-1)!, other.apiKey)).status, 200, "another key has its own budget");
    });

    test("concurrent requests on all instances: exactly the limit passes", async () => {
      const merchant = await addMerchantFixture(servers[0]!.database.db);
      await earlyInAMinute();
      const responses = await Promise.all(Array.from({ length: LIMIT * 3 }, (_, i) => list(servers[i % servers.length]!, merchant.apiKey)));
      assert.equal(responses.filter((response) => response.status === 200).length, LIMIT);
      assert.equal(responses.filter((response) => response.status === 429).length, LIMIT * 2);
    });
  });
}
