// The wrong-API-key brake under requests that arrive together: each takes its place in the
// address's count before its key is looked up, so of 40 wrong keys sent at once at most the limit
// are looked up (401) and the rest are braked (429 3002) without one — with the count in memory,
// and with it in the database (on PostgreSQL across two instances). A good key the instance has
// not seen yet, sent 40 times at once, is looked up once and never braked.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { AUTH_FAILURES_PER_MINUTE } from "../../src/http/auth-brake.ts";
import { DEFAULT_RATE_LIMITS } from "../../src/http/rate-limit.ts";
import { testBackends } from "../support/databases.ts";
import { startSecondInstance, startTestServer, type TestServer } from "../support/harness.ts";

const rateLimits = { ...DEFAULT_RATE_LIMITS, apiPerMinute: 10_000, checkoutFailures: 0 };

/** The windows are whole clock minutes: start a test early in one, so it cannot roll over midway. */
async function earlyInAMinute() {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 250));
}

async function list(server: TestServer, apiKey: string) {
  const response = await fetch(`${server.baseUrl}/api/v1/paymentlinks?pageSize=1`, { headers: { "x-api-key": apiKey } });
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body: (await response.json()) as any };
}

/** A key of the right shape that no merchant has: it costs a look-up, like a real guess. */
const guess = (i: number) => `plk_${String(i).padStart(32, "0")}`;

for (const backend of testBackends()) {
  for (const counted of ["in memory", "in the database"] as const) {
    const shared = counted === "in the database";
    describe(`wrong API keys at once, counted ${counted} (${backend.name})`, () => {
      const servers: TestServer[] = [];
      before(async () => {
        const first = await startTestServer({ backend, rateLimits, sharedRateLimit: shared });
        servers.push(first);
        if (shared && backend.name === "postgres") servers.push(await startSecondInstance(first, { rateLimits, sharedRateLimit: true }));
      });
      after(async () => {
        for (const server of servers.reverse()) await server.close();
      });

      test("a good key no instance has seen, 40 requests at once: all answered", async () => {
        await earlyInAMinute();
        const merchant = await servers[0]!.addMerchant();
        const statuses = await Promise.all(Array.from({ length: 40 }, (_, i) => list(servers[i % servers.length]!, merchant.apiKey)));
        assert.deepEqual(
          statuses.map((response) => response.status),
          Array(40).fill(200),
        );
      });

      test(`40 wrong keys at once from one address: at most ${AUTH_FAILURES_PER_MINUTE} looked up, the rest braked`, async () => {
        await earlyInAMinute();
        const fresh = await servers[0]!.addMerchant();
        const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => list(servers[i % servers.length]!, guess(i))));
        const looked = answers.filter((answer) => answer.status === 401).length;
        const braked = answers.filter((answer) => answer.status === 429);
        assert.ok(looked <= AUTH_FAILURES_PER_MINUTE, `${looked} keys looked up: ${answers.map((answer) => answer.status).join(" ")}`);
        assert.equal(looked + braked.length, 40, answers.map((answer) => answer.status).join(" "));
        for (const answer of braked) {
          assert.equal(answer.body.errorCode, "3002");
          const retryAfter = Number(answer.retryAfter);
          assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${answer.retryAfter}`);
        }
        // One by one afterwards, exactly the limit of wrong keys in all were looked up; then every
        // instance refuses the address, a good key it has never seen included.
        let more = 0;
        while ((await list(servers[0]!, guess(1000 + more))).status === 401) more++;
        assert.equal(looked + more, AUTH_FAILURES_PER_MINUTE);
        for (const server of servers) {
          assert.equal((await list(server, guess(2000))).status, 429);
          assert.equal((await list(server, fresh.apiKey)).status, 429);
        }
      });
    });
  }
}
