// The wrong-API-key brake is shared by the instances on one PostgreSQL (docs/decisions.md#rate-limits):
// 30 missing or wrong keys from one address in a minute, spread over two instances, and every
// instance answers that address 429 3002 with Retry-After, a good key included. Before, each
// instance counted alone, so two instances let 60 guesses through.
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
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

/** A key of the right shape that no merchant has: it costs a lookup, like a real guess. */
const guess = (i: number) => `plk_${String(i).padStart(32, "0")}`;

for (const backend of testBackends()) {
  describe(`wrong API keys braked across instances (${backend.name})`, () => {
    const servers: TestServer[] = [];
    before(async () => {
      const first = await startTestServer({ backend, rateLimits, sharedRateLimit: true });
      servers.push(first);
      if (backend.name === "postgres") servers.push(await startSecondInstance(first, { rateLimits, sharedRateLimit: true }));
    });
    after(async () => {
      for (const server of servers.reverse()) await server.close();
    });

    test(`${AUTH_FAILURES_PER_MINUTE} failures over all instances, then 429 3002 on every instance, a good key too`, async () => {
      await earlyInAMinute();
      // The good key is known to each instance beforehand, so its check needs no lookup (docs/decisions.md#speed-is-guarded).
      for (const server of servers) assert.equal((await list(server, server.apiKey)).status, 200);
      for (let i = 0; i < AUTH_FAILURES_PER_MINUTE; i++) {
        const response = await list(servers[i % servers.length]!, guess(i));
        assert.equal(response.status, 401, `guess ${i}`);
      }
      // An instance learns of the block at its next failure from that address (one lookup at most).
      for (const server of servers) {
        const next = await list(server, guess(1000));
        assert.ok(next.status === 401 || next.status === 429, `${next.status}`);
      }
      for (const server of servers) {
        const blocked = await list(server, guess(2000));
        assert.equal(blocked.status, 429);
        assert.equal(blocked.body.errorCode, "3002");
        const retryAfter = Number(blocked.headers.get("retry-after"));
        assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
        assert.equal((await list(server, server.apiKey)).status, 429, "the address is stopped before any lookup");
      }
    });
  });
}
