// Two defects a review found in the first version of the slot hand-over (docs/decisions.md#leases-and-fair-shares), kept as tests: a
// newcomer must not wait behind backlogs that fill every slot at their fair share (docs/decisions.md#leases-and-fair-shares),
// and a batch that committed but whose answer was lost must not log its attempts twice when they
// are retried one by one (docs/decisions.md#leases-and-fair-shares). Real databases (PGlite and PostgreSQL), real receivers on
// 127.0.0.1; counts and order, never timings.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, test } from "node:test";
import type { DatabaseConnection } from "kysely";
import type { Database } from "../../src/db/connect.ts";
import { createWebhookEndpoint } from "../../src/db/webhook-endpoints-repository.ts";
import { DEFAULT_BREAKER_POLICY } from "../../src/webhooks/breaker.ts";
import { claimDueDeliveries } from "../../src/webhooks/claim.ts";
import { HandOverRecorder } from "../../src/webhooks/hand-over.ts";
import { recordOutcome, silentLogger } from "../../src/webhooks/outcome.ts";
import { testBackends } from "../support/databases.ts";
import { waitUntil } from "../support/wait.ts";
import { addMerchantWithEndpoint, attemptRows, deliveredAttempt, deliveryRow, enqueue, sampleMessage, testKeyring } from "./support.ts";
import { workerTestBed } from "./test-bed.ts";

const keyring = testKeyring();
/** The production defaults: 16 sends at once, a fair share of 4 per endpoint. */
const CONCURRENCY = 16;
const FAIR_SHARE = 4;
const ENDPOINTS_OF_A = CONCURRENCY / FAIR_SHARE; // 4 endpoints at their fair share fill every slot
const BACKLOG_PER_ENDPOINT = 150;

/**
 * The same database, through a client that loses the answer of the first hand-over statement after
 * the server ran (and committed) it: what a connection dropped or a client time-out after the
 * commit looks like to the worker. The database is real; only the reply is lost.
 */
function losingFirstHandOverReply(db: Database): Database {
  const executor = db.getExecutor();
  let lost = false;
  const provider = {
    provideConnection<T>(consumer: (connection: DatabaseConnection) => Promise<T>): Promise<T> {
      return executor.provideConnection((connection) =>
        consumer(
          new Proxy(connection, {
            get(target, property, receiver) {
              if (property !== "executeQuery") return Reflect.get(target, property, receiver);
              return async (query: { sql: unknown }) => {
                const result = await target.executeQuery(query as never);
                const text = typeof query.sql === "string" ? query.sql : JSON.stringify(query.sql);
                if (!lost && text.includes("jsonb_to_recordset")) {
                  lost = true;
                  throw new Error("Connection terminated unexpectedly (after the commit)");
                }
                return result;
              };
            },
          }),
        ),
      );
    },
  };
  const faulty = executor.withConnectionProvider(provider);
  return { getExecutor: () => faulty } as unknown as Database;
}

for (const backend of testBackends()) {
  describe(`hand-over regressions (${backend.name})`, () => {
    const bed = workerTestBed(backend, { disableEndpointsAfterEach: true });

    // One merchant's backlog never delays another's (docs/decisions.md#leases-and-fair-shares). A slot handed over at the fair share
    // never comes free: with merchant A's four endpoints holding 4 × 4 = 16 slots, the claim loop
    // would never run again and B's newcomer would wait for A's whole backlog. So a slot is handed
    // over only while its endpoint is the one with due work (docs/decisions.md#leases-and-fair-shares), and a claim gives a freed slot
    // to the endpoint with the fewest sends in flight (docs/decisions.md#leases-and-fair-shares): by age alone, A's older deliveries
    // beat B's newer one whenever slots free one at a time (always on PGlite's one connection).
    test("merchant A's four endpoints at their fair share fill every slot; B's newcomer is sent within a few of A's sends, not after A's backlog", async () => {
      const received = { a: 0, b: 0, aBeforeB: -1 };
      const hook = await bed.receiver((request) => {
        if (request.url.endsWith("/b")) {
          received.b += 1;
          if (received.aBeforeB < 0) received.aBeforeB = received.a;
        } else received.a += 1;
        return { status: 200, body: "ok" };
      });
      const base = hook.url;
      const a = await addMerchantWithEndpoint(bed.db, keyring, `${base}/a0`);
      for (let i = 1; i < ENDPOINTS_OF_A; i++)
        await createWebhookEndpoint(bed.db, keyring, a.merchantId, {
          url: `${base}/a${i}`,
          apiKey: `Bearer ${randomBytes(8).toString("hex")}`,
        });
      const aIds = await bed.enqueueMany(a.merchantId, BACKLOG_PER_ENDPOINT);
      assert.equal(aIds.length, ENDPOINTS_OF_A * BACKLOG_PER_ENDPOINT);

      const { wake } = bed.worker({ concurrency: CONCURRENCY, perEndpointConcurrency: FAIR_SHARE });
      wake();
      // Well into A's backlog: every one of the 16 slots is busy with A's endpoints.
      await waitUntil(async () => received.a >= 3 * CONCURRENCY, 30_000, "A's backlog being sent");

      const b = await addMerchantWithEndpoint(bed.db, keyring, `${base}/b`);
      await enqueue(bed.db, b.merchantId, sampleMessage());
      const aAtEnqueue = received.a;
      wake();
      await waitUntil(async () => received.b >= 1, 120_000, "B's message sent");
      const total = ENDPOINTS_OF_A * BACKLOG_PER_ENDPOINT;
      // B's message takes one of the next freed slots: a handful of A's sends later, not hundreds.
      assert.ok(
        received.aBeforeB - aAtEnqueue < total / 4,
        `B's newcomer was sent after ${received.aBeforeB} of A's ${total} deliveries (B's message was queued after ${aAtEnqueue})`,
      );
    });

    // A batch whose statement committed but whose answer was lost (a dropped connection) is
    // retried one attempt at a time (docs/decisions.md#leases-and-fair-shares); the retry must find the attempt logged, not log it again.
    test("a batch that committed but whose answer was lost is not logged twice when its attempt is retried alone", async () => {
      const a = await addMerchantWithEndpoint(bed.db, keyring, "http://127.0.0.1:9/unused");
      await bed.enqueueMany(a.merchantId, 3);
      const [first] = await claimDueDeliveries(bed.db, 1, 30_000, 4, 12);
      assert.ok(first);
      const faulty = losingFirstHandOverReply(bed.db);
      const recorder = new HandOverRecorder(faulty, { leaseMs: 30_000, perEndpoint: 4, alonePerEndpoint: 12 }, 16);
      await recordOutcome(faulty, first, { record: deliveredAttempt(), attemptNumber: 1 }, DEFAULT_BREAKER_POLICY, silentLogger, recorder);
      assert.equal((await deliveryRow(bed.db, first.id)).state, "delivered");
      assert.equal((await attemptRows(bed.db, first.id)).length, 1, "one send, one row in webhook_attempts");
    });
  });
}
