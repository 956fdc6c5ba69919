// The slot hand-over (docs/webhooks.md#fairness-between-endpoints, docs/decisions.md#leases-and-fair-shares): a delivered attempt's
// record leases its endpoint's next due delivery in the same statement, within the endpoint's cap
// over every worker, and never after a failure, a probe, or with the breaker open. Real databases
// (PGlite and PostgreSQL), real receivers on 127.0.0.1; counts, never timings.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { sql } from "kysely";
import { openDatabase } from "../../src/db/connect.ts";
import { DEFAULT_BREAKER_POLICY } from "../../src/webhooks/breaker.ts";
import { claimDueDeliveries } from "../../src/webhooks/claim.ts";
import type { AttemptRecord, ClaimedDelivery } from "../../src/webhooks/delivery-queue.ts";
import { HandOverRecorder, recordDeliveredAndHandOver } from "../../src/webhooks/hand-over.ts";
import { recordOutcome, silentLogger } from "../../src/webhooks/outcome.ts";
import { testBackends } from "../support/databases.ts";
import { waitUntil } from "../support/wait.ts";
import {
  addMerchantWithEndpoint,
  attemptRows,
  deliveredAttempt,
  deliveryRow,
  enqueue,
  sampleMessage,
  startReceiver,
  testKeyring,
} from "./support.ts";
import { workerTestBed } from "./test-bed.ts";

const keyring = testKeyring();
/** The production defaults: a fair share of 4, and 16 − 4 for an endpoint alone (docs/decisions.md#leases-and-fair-shares). */
const POLICY = { leaseMs: 30_000, perEndpoint: 4, alonePerEndpoint: 12 };
const LEASE_MS = POLICY.leaseMs;

for (const backend of testBackends()) {
  describe(`the slot hand-over (${backend.name})`, () => {
    const bed = workerTestBed(backend, { disableEndpointsAfterEach: true });
    const liveLeases = async (endpointId: string) =>
      Number(
        (
          await sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_deliveries
            WHERE endpoint_id = ${endpointId} AND state = 'pending' AND lease_until >= now()`.execute(bed.db)
        ).rows[0]?.n,
      );
    /** An endpoint with `count` due deliveries, and a claim of them as a worker makes it. */
    async function backlog(count: number) {
      const fixture = await addMerchantWithEndpoint(bed.db, keyring, "http://127.0.0.1:9/unused");
      await bed.enqueueMany(fixture.merchantId, count);
      return fixture;
    }
    const claim = () => claimDueDeliveries(bed.db, 16, LEASE_MS, POLICY.perEndpoint, POLICY.alonePerEndpoint);
    const handOver = (claims: ClaimedDelivery[]) =>
      recordDeliveredAndHandOver(
        bed.db,
        claims.map((c) => ({ claim: c, attempt: deliveredAttempt() })),
        POLICY,
      );

    test("a delivered attempt is recorded and its slot goes to the endpoint's next due delivery: the leases stay at the cap", async () => {
      const a = await backlog(30);
      const claimed = await claim();
      assert.equal(claimed.length, 12);
      const [one] = await handOver([claimed[0]!]);
      assert.ok(one?.owned && one.next, "owned, and one handed over");
      assert.equal(one.next.endpointId, a.webhookId);
      assert.ok(!claimed.some((c) => c.id === one.next!.id), "a delivery that was not leased yet");
      assert.equal((await deliveryRow(bed.db, claimed[0]!.id)).state, "delivered");
      assert.equal((await attemptRows(bed.db, claimed[0]!.id)).length, 1, "the attempt is logged");
      assert.equal(await liveLeases(a.webhookId), 12);

      // Five at once: five handed over, one each, still 12 leased.
      const batch = await handOver(claimed.slice(1, 6));
      assert.equal(batch.filter((r) => r.owned && r.next).length, 5);
      assert.equal(new Set(batch.map((r) => r.next?.id)).size, 5);
      assert.equal(await liveLeases(a.webhookId), 12);
    });

    test("while another endpoint has due work nothing is handed over; the claim gives B the first freed slot, and then A hands over again", async () => {
      const a = await backlog(40);
      const claimed = await claim();
      assert.equal(claimed.length, 12);
      const b = await addMerchantWithEndpoint(bed.db, keyring, "http://127.0.0.1:9/unused");
      await enqueue(bed.db, b.merchantId, sampleMessage());

      const firstNine = await handOver(claimed.slice(0, 9));
      assert.ok(
        firstNine.every((r) => r.owned && !r.next),
        "nothing handed over while B waits: every freed slot goes back to the claim",
      );
      assert.equal(await liveLeases(a.webhookId), 3);
      // One slot: B has none in flight and A three, so B's delivery takes it, though A's are older.
      const [first] = await claimDueDeliveries(bed.db, 1, LEASE_MS, POLICY.perEndpoint, POLICY.alonePerEndpoint);
      assert.equal(first?.endpointId, b.webhookId);
      const [tenth] = await handOver([claimed[9]!]);
      assert.ok(tenth?.next, "B's work is in flight, none is waiting: A is alone again and hands over");
      assert.equal(await liveLeases(a.webhookId), 3);
    });

    test("nothing is handed over after a failed attempt, for a probe, with the breaker open or failures counted above the fair share, or for a lease no longer ours", async () => {
      const a = await backlog(40);
      const claimed = await claim();
      const recorder = new HandOverRecorder(bed.db, POLICY, 16);
      const failed: AttemptRecord = { ...deliveredAttempt(), statusCode: 500, next: { state: "retry", retryDelayMs: 60_000 } };
      const next = await recordOutcome(
        bed.db,
        claimed[0]!,
        { record: failed, attemptNumber: 1 },
        DEFAULT_BREAKER_POLICY,
        silentLogger,
        recorder,
      );
      assert.equal(next, undefined, "a failed attempt frees its slot");
      const probe = await recordOutcome(
        bed.db,
        { ...claimed[1]!, probe: true },
        { record: deliveredAttempt(), attemptNumber: 1 },
        DEFAULT_BREAKER_POLICY,
        silentLogger,
        recorder,
      );
      assert.equal(probe, undefined, "a probe frees its slot: the claim loop decides after it");
      assert.equal(await liveLeases(a.webhookId), 10);

      // Failures counted, breaker still closed: held to the fair share although alone.
      await bed.db.updateTable("webhook_endpoint_health").set({ consecutive_failures: 2 }).where("endpoint_id", "=", a.webhookId).execute();
      const withFailures = await handOver(claimed.slice(2, 4));
      assert.ok(withFailures.every((r) => r.owned && !r.next));

      await bed.db
        .updateTable("webhook_endpoint_health")
        .set({ consecutive_failures: 0, open_until: sql<Date>`now() + interval '1 minute'`, opened_at: sql<Date>`now()` })
        .where("endpoint_id", "=", a.webhookId)
        .execute();
      const open = await handOver([claimed[4]!]);
      assert.ok(open[0]?.owned && !open[0].next, "an open breaker takes no hand-over");
      await bed.db
        .updateTable("webhook_endpoint_health")
        .set({ open_until: null, opened_at: null })
        .where("endpoint_id", "=", a.webhookId)
        .execute();

      // A lease that ran out was no longer counted: giving it up may not take another.
      await sql`UPDATE webhook_deliveries SET lease_until = now() - interval '1 second' WHERE id = ${claimed[5]!.id}`.execute(bed.db);
      const expired = await handOver([claimed[5]!]);
      assert.ok(expired[0]?.owned && !expired[0].next);
      const stolen = await handOver([{ ...claimed[6]!, leaseToken: "someone-else" }]);
      assert.ok(!stolen[0]?.owned && !stolen[0]?.next, "a lease another worker holds is neither recorded nor handed over");

      // A disabled endpoint gets none either.
      await bed.db.updateTable("webhook_endpoints").set({ enabled: false }).where("id", "=", a.webhookId).execute();
      const disabled = await handOver([claimed[7]!]);
      assert.ok(disabled[0]?.owned && !disabled[0].next);
    });

    test("an attempt the batch statement cannot take is recorded on its own, and so are the others batched with it", async () => {
      const a = await backlog(20);
      const claimed = await claim();
      const recorder = new HandOverRecorder(bed.db, POLICY, 16);
      const record = (delivery: ClaimedDelivery, excerpt: string) =>
        recordOutcome(
          bed.db,
          delivery,
          { record: { ...deliveredAttempt(), responseExcerpt: excerpt }, attemptNumber: 1 },
          DEFAULT_BREAKER_POLICY,
          silentLogger,
          recorder,
        );
      // The first goes alone; the other two wait for it and go together. A lone surrogate is no
      // valid JSON text for the batch's jsonb input; as a text parameter it is written as U+FFFD.
      const [first, bad, other] = await Promise.all([
        record(claimed[0]!, "ok"),
        record(claimed[1]!, "broken \ud800 answer"),
        record(claimed[2]!, "ok"),
      ]);
      assert.ok(first, "the first was handed over a delivery");
      assert.equal(bad, undefined, "recorded on its own, without a hand-over");
      assert.equal(other, undefined, "its batch failed: recorded on its own too");
      for (const delivery of claimed.slice(0, 3)) {
        assert.equal((await deliveryRow(bed.db, delivery.id)).state, "delivered");
        assert.equal((await attemptRows(bed.db, delivery.id)).length, 1, "logged once");
      }
      assert.equal(await liveLeases(a.webhookId), 10, "two slots freed, one handed over");
    });

    test("two instances' workers handing over on one database keep the endpoint within its cap, each delivery sent once, and a stop leaves nothing leased", async () => {
      let open = 0;
      let peak = 0;
      const hook = await startReceiver(() => {
        open += 1;
        peak = Math.max(peak, open);
        setTimeout(() => {
          open -= 1;
        }, 20);
        return { status: 200, delayMs: 20 };
      });
      bed.later(() => hook.close());
      const fixture = await addMerchantWithEndpoint(bed.db, keyring, hook.url);
      const ids = await bed.enqueueMany(fixture.merchantId, 150);
      // On PostgreSQL the second worker has a pool of its own, as another instance would.
      const other = bed.url ? await openDatabase({ kind: "postgres", url: bed.url }, { migrate: false }) : undefined;
      if (other) bed.later(() => other.close());
      const first = bed.worker({ concurrency: 8, perEndpointConcurrency: 3 });
      const second = bed.worker({ concurrency: 8, perEndpointConcurrency: 3, ...(other ? { db: other.db } : {}) });
      first.wake();
      second.wake();
      await hook.waitFor(60, 60_000);
      await Promise.all([first.instance.stop(5000), second.instance.stop(5000)]);
      const leased = await sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_deliveries
        WHERE endpoint_id = ${fixture.webhookId} AND lease_until IS NOT NULL`.execute(bed.db);
      assert.equal(leased.rows[0]?.n, 0, "stopped workers hold no lease: handed-over deliveries not yet sent were given back");

      const again = bed.worker({ concurrency: 8, perEndpointConcurrency: 3 });
      again.wake();
      await waitUntil(
        async () =>
          (await bed.db.selectFrom("webhook_deliveries").select("state").where("id", "in", ids).execute()).every(
            (r) => r.state === "delivered",
          ),
        60_000,
        "all 150 delivered",
      );
      // Alone, the endpoint may have 8 − 3 in flight (docs/decisions.md#leases-and-fair-shares), counted over both workers' leases.
      assert.ok(peak <= 5, `at most 5 at once at the receiver (peak ${peak})`);
      const seen = hook.requests.map((request) => String(request.headers["webhook-id"]));
      assert.equal(seen.length, ids.length, "each delivery sent once");
      assert.deepEqual([...seen].sort(), [...ids].sort());
    });
  });
}
