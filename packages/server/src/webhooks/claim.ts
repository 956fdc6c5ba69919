// Claiming due deliveries, fairly between endpoints (docs/webhooks.md#fairness-between-endpoints).
// A statement, then one short transaction of two:
//   1. list the endpoints with due work that may send now (and give each its breaker row, once);
//   2. lock the breaker rows of those that may send now (enabled, breaker closed or ready for a
//      probe), SKIP LOCKED: two workers never claim for one endpoint at the same moment;
//   3. with a fresh snapshot (READ COMMITTED: taken after the locks, so every earlier claim is
//      seen), count each endpoint's live leases and lease at most its cap minus that many of its
//      oldest due deliveries — one probe for an endpoint whose breaker is past its cool-down —
//      taking every endpoint's first delivery before any endpoint's second.
// The cap is `perEndpoint` (the fair share), or `alonePerEndpoint` for an endpoint that is the only
// one with due work and has no failure counted (docs/decisions.md#leases-and-fair-shares): a lone backlog may use the slots nobody else
// wants, and falls back to its fair share at the next claim that sees another endpoint waiting.
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import type { Database } from "../db/connect.ts";
import { waitUntilDurable } from "../db/durable-commit.ts";
import { type ClaimedDelivery, type LeasedRow, leasedDelivery } from "./delivery-queue.ts";
import { PENDING_ENDPOINTS_WALK, WALKED_ENDPOINTS_THAT_MAY_SEND } from "./endpoint-walk.ts";

/** Sends in flight per endpoint, across all workers and instances (default 4). */
export const DEFAULT_PER_ENDPOINT_CONCURRENCY = 4;

/**
 * Leases up to `limit` due deliveries for `leaseMs`. Rows under a live lease are not due, so two
 * workers never hold one delivery at once; a lease that ran out (its worker died) makes the row due
 * again. Deadlines and leases use the database clock, shared by all instances.
 */
export async function claimDueDeliveries(
  db: Database,
  limit: number,
  leaseMs: number,
  perEndpoint: number = DEFAULT_PER_ENDPOINT_CONCURRENCY,
  alonePerEndpoint: number = perEndpoint,
): Promise<ClaimedDelivery[]> {
  if (limit <= 0) return [];
  const leaseToken = randomUUID();
  // Endpoints with pending rows (endpoint-walk.ts), each given its breaker row once. Outside the
  // transaction, so that an idle poll is one statement.
  const pending = await sql<{ endpoint_id: string }>`
      WITH RECURSIVE ${sql.raw(PENDING_ENDPOINTS_WALK)},
      added AS (
        INSERT INTO webhook_endpoint_health (endpoint_id)
        SELECT endpoint_id FROM walk WHERE endpoint_id IS NOT NULL
        ON CONFLICT (endpoint_id) DO NOTHING
      )
      -- Only those that may send now, so an idle poll or a held backlog ends here. A row just
      -- added is not visible yet (same statement): no row means a new endpoint, which may send.
      ${sql.raw(WALKED_ENDPOINTS_THAT_MAY_SEND)}
    `.execute(db);
  if (pending.rows.length === 0) return [];

  const rows = await db.transaction().execute(async (trx) => {
    // The lease commits without waiting for the disk (docs/decisions.md#outbox): this transaction is the one step the
    // worker takes one at a time, and the flush was most of its time. A lease lost with the
    // database's last moments only makes its delivery due again, as a worker that died would.
    const ready = await sql<{ endpoint_id: string }>`
      SELECT h.endpoint_id
      FROM (SELECT set_config('synchronous_commit', 'off', true), ${sql.raw(LEASE_PLANNER_SETTINGS)}) AS lease_settings,
           webhook_endpoint_health h
      JOIN webhook_endpoints e ON e.id = h.endpoint_id
      WHERE h.endpoint_id IN (${sql.join(pending.rows.map((row) => row.endpoint_id))})
        AND e.enabled
        AND (h.open_until IS NULL OR h.open_until <= now())
      FOR UPDATE OF h SKIP LOCKED
    `.execute(trx);
    if (ready.rows.length === 0) return [];

    // "Alone" is judged on the walk: an endpoint whose due work arrived since then, or that another
    // worker holds locked, is seen by the next claim, which every finished send triggers.
    const alone = pending.rows.length === 1;
    const lease = { alone, perEndpoint, alonePerEndpoint, limit, leaseMs, leaseToken };
    const result = await leaseDueDeliveriesStatement(
      ready.rows.map((row) => row.endpoint_id),
      lease,
    ).execute(trx);
    return result.rows;
  });
  // Nothing is sent before every commit the database made so far is on disk: the payment results
  // whose outbox rows were just claimed commit without waiting for the flush and wait for it
  // afterwards, and a webhook must never announce a result a crash could still take back.
  // One wait per batch, after the endpoints' rows are unlocked.
  if (rows.length > 0) await waitUntilDurable(db);
  return rows.map((row) => leasedDelivery(row, leaseToken));
}

/**
 * The lease statement's planner setting, made by the transaction's first statement so that it
 * holds when the lease statement is planned (a setting made inside a statement comes too late for
 * that statement's plan). Without bitmap scans the live leases are counted by a plain index scan,
 * which marks the index entries of delivered rows dead as it passes them; a bitmap scan cannot, and
 * with several endpoints waiting the planner chose one that read every lease entry since the last
 * vacuum for each endpoint (docs/decisions.md#queue-statements). The plan test applies the same setting.
 */
export const LEASE_PLANNER_SETTINGS = "set_config('enable_bitmapscan', 'off', true)";

/** What the claim's lease statement is given besides the endpoints. */
export interface LeaseShape {
  /** The walk found one endpoint with due work (docs/decisions.md#leases-and-fair-shares). */
  alone: boolean;
  perEndpoint: number;
  alonePerEndpoint: number;
  /** Deliveries to lease at most (the worker's free slots). */
  limit: number;
  leaseMs: number;
  leaseToken: string;
}

/**
 * The claim's second step, inside its transaction once the endpoints' breaker rows are locked:
 * leases the deliveries those endpoints may send now. Exported for the plan test (docs/decisions.md#queue-statements).
 */
export function leaseDueDeliveriesStatement(endpointIds: readonly string[], lease: LeaseShape) {
  const maxCap = Math.max(lease.perEndpoint, lease.alonePerEndpoint);
  // Live leases are counted on webhook_deliveries_leased (migration 0024) without `state =
  // 'pending'`, which made the planner read the endpoint's whole backlog through the pending
  // index: a lease is only ever set on a pending row, and every change of state clears it. In
  // index order with a LIMIT, as the hand-over counts them (hand-over.ts, docs/decisions.md#queue-statements), and the chosen
  // rows are locked by an array of their ids, so that no step reads the backlog whatever the
  // statistics say about it.
  return sql<LeasedRow>`
    WITH room AS (
      SELECT h.endpoint_id,
             (CASE WHEN h.open_until IS NOT NULL THEN 1
                   WHEN ${lease.alone}::boolean AND h.consecutive_failures = 0 THEN ${maxCap}::int
                   ELSE ${lease.perEndpoint}::int END) AS cap,
             (SELECT count(*) FROM (SELECT 1 FROM webhook_deliveries l
              WHERE l.endpoint_id = h.endpoint_id AND l.lease_until IS NOT NULL AND l.lease_until >= now()
              ORDER BY l.endpoint_id, l.lease_until LIMIT ${maxCap}::int) AS live)::int AS leased,
             h.open_until IS NOT NULL AS probe,
             h.open_until IS NULL AND h.consecutive_failures = 0 AS clean
      FROM webhook_endpoint_health h
      WHERE h.endpoint_id IN (${sql.join(endpointIds)})
    ),
    turns AS (
      SELECT c.id, c.next_attempt_at, room.probe, room.clean, room.leased,
             row_number() OVER (PARTITION BY room.endpoint_id ORDER BY c.next_attempt_at, c.id) AS turn,
             room.cap - room.leased AS free
      FROM room
      CROSS JOIN LATERAL (
        SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
        WHERE d.endpoint_id = room.endpoint_id AND d.state = 'pending' AND d.next_attempt_at <= now()
          AND (d.lease_until IS NULL OR d.lease_until < now())
        ORDER BY d.next_attempt_at, d.id
        LIMIT ${maxCap}::int
      ) c
      WHERE room.cap > room.leased
    ),
    -- By the place each delivery would take among its endpoint's sends (those in flight, then its
    -- turn): an endpoint with fewer sends in flight goes first (docs/decisions.md#leases-and-fair-shares), so when slots free one at
    -- a time a newcomer's first delivery goes before a busy endpoint's next, however old that is.
    chosen AS (
      SELECT id, probe, clean FROM turns WHERE turn <= free ORDER BY leased + turn, next_attempt_at, id LIMIT ${lease.limit}::int
    ),
    -- Still pending and free once locked, judged in a CASE: written as \`d.state = 'pending'\`, the
    -- condition lets the planner find the rows through the pending index instead of by id, reading
    -- the whole backlog when the statistics are older than the backlog (docs/decisions.md#queue-statements).
    due AS (
      SELECT d.id, chosen.probe, chosen.clean FROM webhook_deliveries d JOIN chosen ON chosen.id = d.id
      WHERE d.id = ANY (ARRAY(SELECT id FROM chosen))
        AND CASE WHEN d.state = 'pending' THEN d.lease_until IS NULL OR d.lease_until < now() ELSE false END
      FOR UPDATE OF d SKIP LOCKED
    )
    UPDATE webhook_deliveries AS w
    SET lease_until = now() + ${lease.leaseMs}::double precision * interval '1 millisecond',
        lease_token = ${lease.leaseToken}
    FROM due, webhook_endpoints AS e
    WHERE w.id = due.id AND e.id = w.endpoint_id
    RETURNING w.id, w.merchant_id, w.endpoint_id, w.event_type, w.payload, w.attempt_count, e.url, e.api_key, e.hmac_key,
              due.probe, due.clean
  `;
}
