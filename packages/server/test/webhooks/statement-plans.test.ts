// The worker's two statements that run for every batch of sends, the claim's lease and the slot
// hand-over, must not read the delivery log or the backlog (docs/decisions.md#queue-statements): their cost would then
// grow with every delivery ever made, and the worker's throughput fall with it. This test builds
// the situation that exposed it: a log of finished deliveries, a backlog after it, the dead index
// entries its first sends left behind (each send leases its row and then records it: two updates
// that add index entries), and statistics taken either before the backlog or while it is sent. It
// runs both statements under EXPLAIN ANALYZE, with the plans PostgreSQL chooses for their
// parameters and with the generic plan a prepared statement may keep, and checks that no step of
// either touches more than a few times the batch's rows of webhook_deliveries. Row counts, never
// timings; every change is rolled back. It runs with one endpoint, whose backlog may use every
// slot (docs/decisions.md#leases-and-fair-shares), and with three endpoints sharing the log and the backlog, each at its fair share.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { CompiledQuery, sql } from "kysely";
import { claimDueDeliveries, LEASE_PLANNER_SETTINGS, leaseDueDeliveriesStatement } from "../../src/webhooks/claim.ts";
import type { ClaimedDelivery } from "../../src/webhooks/delivery-queue.ts";
import { handOverParameters, RECORD_AND_HAND_OVER } from "../../src/webhooks/hand-over.ts";
import { type TestDatabase, testBackends } from "../support/databases.ts";
import { type PlanNode, parsePlan, rolledBack, rowsTouched } from "../support/plans.ts";
import { addMerchantWithEndpoint, deliveredAttempt, testKeyring } from "./support.ts";

const LOG = 3_000;
const BACKLOG = 3_000;
/** Sends of the backlog already made: leased, then delivered. */
const SENT = 600;
const FAIR_SHARE = 4;
const ALONE = 12;
/** Rows any one step may touch: the batch is 12, what it hands over 12 more. */
const MOST_ROWS_PER_STEP = 60;

/** Every step that reads webhook_deliveries or one of its indexes, with the rows it touched (over all its loops). */
function deliveryReads(node: PlanNode, found: { step: string; rows: number }[] = []): { step: string; rows: number }[] {
  const name = node["Index Name"] ?? node["Relation Name"] ?? "";
  if (name.startsWith("webhook_deliveries")) {
    found.push({ step: `${node["Node Type"]} on ${name}`, rows: rowsTouched(node) });
  }
  for (const child of node.Plans ?? []) deliveryReads(child, found);
  return found;
}

function assertReadsOnlyTheBatch(plan: PlanNode, what: string): void {
  const reads = deliveryReads(plan);
  assert.ok(reads.length > 0, `${what}: the plan reads webhook_deliveries somewhere`);
  const tooMany = reads.filter((read) => read.rows > MOST_ROWS_PER_STEP);
  assert.deepEqual(tooMany, [], `${what}: steps that read the log or the backlog`);
}

/**
 * When the table's statistics were last taken: before the backlog arrived (the planner believes
 * pending rows rare), or while the backlog is sent (it knows of the leases and of the backlog).
 * Each misled the planner into reading the table once. (With no statistics at all, a young
 * installation's, the hand-over's live-lease count may still be a bitmap scan: see docs/decisions.md#queue-statements. The
 * claim's lease is planned without bitmap scans, docs/decisions.md#queue-statements.)
 */
const STATISTICS = ["taken before the backlog", "taken while it is sent"] as const;

/** One endpoint alone with the whole backlog, or three whose rows alternate in the log and the backlog. */
const ENDPOINT_COUNTS = [1, 3] as const;

for (const backend of testBackends())
  for (const endpointCount of ENDPOINT_COUNTS)
    for (const statistics of STATISTICS) {
      describe(`the webhook statements' plans with a large log and a backlog, ${endpointCount} endpoint(s), statistics ${statistics} (${backend.name})`, () => {
        let database: TestDatabase;
        let endpointIds: string[];
        let batch: ClaimedDelivery[];

        before(async () => {
          database = await backend.open();
          const { db } = database;
          const endpoints = [];
          for (let i = 0; i < endpointCount; i++)
            endpoints.push(await addMerchantWithEndpoint(db, testKeyring(), "http://127.0.0.1:9/hooks"));
          endpointIds = endpoints.map((endpoint) => endpoint.webhookId);
          // Row g belongs to endpoint g mod endpointCount, so every endpoint's rows are spread over the table.
          const owners = sql`(SELECT (ARRAY[${sql.join(endpoints.map((e) => e.merchantId))}])[1 + g % ${endpointCount}::int] AS merchant_id,
                                   (ARRAY[${sql.join(endpointIds)}])[1 + g % ${endpointCount}::int] AS endpoint_id) AS o`;
          await sql`
        INSERT INTO webhook_deliveries (id, merchant_id, endpoint_id, event_type, payload, state, attempt_count,
                                        delivered_at, created_at, next_attempt_at)
        SELECT 'whd_log' || g, o.merchant_id, o.endpoint_id, 'Authorization', jsonb_build_object('n', g), 'delivered', 1,
               now() - interval '1 day', now() - interval '1 day', now() - interval '1 day'
        FROM generate_series(1, ${LOG}::int) g CROSS JOIN LATERAL ${owners}
      `.execute(db);
          if (statistics === "taken before the backlog") await sql`ANALYZE webhook_deliveries`.execute(db);
          await sql`
        INSERT INTO webhook_deliveries (id, merchant_id, endpoint_id, event_type, payload, created_at, next_attempt_at)
        SELECT 'whd_due' || lpad(g::text, 6, '0'), o.merchant_id, o.endpoint_id, 'Authorization', jsonb_build_object('n', g),
               now() - interval '1 hour' + g * interval '1 millisecond', now() - interval '1 hour' + g * interval '1 millisecond'
        FROM generate_series(1, ${BACKLOG}::int) g CROSS JOIN LATERAL ${owners}
      `.execute(db);
          // The first sends of the backlog, as the worker makes them: the lease, then the result.
          await sql`
        UPDATE webhook_deliveries SET lease_until = now() + interval '30 seconds', lease_token = 'sent'
        WHERE id IN (SELECT id FROM webhook_deliveries WHERE state = 'pending' ORDER BY id LIMIT ${SENT}::int)
      `.execute(db);
          await sql`
        UPDATE webhook_deliveries
        SET state = 'delivered', delivered_at = now(), attempt_count = 1, lease_until = NULL, lease_token = NULL
        WHERE lease_token = 'sent'
      `.execute(db);
          // Alone, one endpoint takes the whole batch; three take their fair share each (3 × 4 = 12).
          batch = await claimDueDeliveries(db, ALONE, 30_000, FAIR_SHARE, ALONE);
          assert.equal(batch.length, ALONE, "the claim leased a batch");
          assert.equal(new Set(batch.map((claim) => claim.endpointId)).size, endpointCount, "every endpoint has its share");
          if (statistics === "taken while it is sent") await sql`ANALYZE webhook_deliveries`.execute(db);
        });
        after(() => database?.destroy());

        for (const mode of ["force_custom_plan", "force_generic_plan"] as const) {
          test(`the hand-over of a batch reads only the batch and what it hands over (${mode})`, async () => {
            const attempts = batch.map((claim) => ({ claim, attempt: deliveredAttempt() }));
            const parameters = handOverParameters(
              attempts,
              { leaseMs: 30_000, perEndpoint: FAIR_SHARE, alonePerEndpoint: ALONE },
              randomUUID(),
            );
            const { plan, handed } = await rolledBack(database.db, async (trx) => {
              await sql`SELECT set_config('plan_cache_mode', ${mode}, true)`.execute(trx);
              const name = `plan_test_${mode}`;
              await sql`PREPARE ${sql.raw(name)} AS ${sql.raw(RECORD_AND_HAND_OVER.text)}`.execute(trx);
              try {
                const values = sql.join(parameters.map((value) => sql.lit(value as string | number)));
                const explained = await sql<Record<string, unknown>>`
              EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE ${sql.raw(name)}(${values})`.execute(trx);
                const leased = await sql<{ n: number }>`
              SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id IN (${sql.join(endpointIds)}) AND lease_until >= now()`.execute(
                  trx,
                );
                return { plan: parsePlan(explained.rows), handed: leased.rows[0]!.n };
              } finally {
                // After a failed EXPLAIN the transaction is aborted and this fails too: let the first error through.
                await sql`DEALLOCATE ${sql.raw(name)}`.execute(trx).catch(() => {});
              }
            });
            // The statement did its work: the batch recorded and, for an endpoint alone, the same number
            // of slots handed over; with other endpoints waiting every slot goes back to the claim (docs/decisions.md#leases-and-fair-shares).
            assert.equal(handed, endpointCount === 1 ? ALONE : 0);
            assertReadsOnlyTheBatch(plan, `hand-over, ${mode}`);
          });
        }

        test("the claim's lease reads only what it leases", async () => {
          const plan = await rolledBack(database.db, async (trx) => {
            // The batch's leases run out, so the claim finds the endpoint with room for a whole batch.
            await sql`UPDATE webhook_deliveries SET lease_until = now() - interval '1 second' WHERE lease_token IS NOT NULL`.execute(trx);
            // As the claim's transaction sets it before its lease statement.
            await sql`SELECT ${sql.raw(LEASE_PLANNER_SETTINGS)}`.execute(trx);
            const statement = leaseDueDeliveriesStatement(endpointIds, {
              alone: endpointCount === 1,
              perEndpoint: FAIR_SHARE,
              alonePerEndpoint: ALONE,
              limit: ALONE,
              leaseMs: 30_000,
              leaseToken: randomUUID(),
            }).compile(trx);
            const explained = await trx.executeQuery<Record<string, unknown>>(
              CompiledQuery.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.sql}`, [...statement.parameters]),
            );
            return parsePlan(explained.rows);
          });
          const leased = deliveryReads(plan).find((read) => read.step.startsWith("ModifyTable") || read.step.startsWith("Update"));
          assert.equal(leased?.rows, ALONE, "the statement leased a whole batch");
          assertReadsOnlyTheBatch(plan, "claim");
        });
      });
    }
