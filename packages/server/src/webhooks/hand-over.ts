// The slot hand-over (docs/decisions.md#leases-and-fair-shares): a delivered attempt is recorded and, in the same statement, its
// endpoint's next due delivery is leased for the slot it frees, so a backlog does not wait for the
// worker's claim loop (claim.ts) between sends. The statement:
//   1. records the attempt exactly as recordAttempt does for a delivered one (the state changes only
//      while the lease token is still ours);
//   2. hands over only if that lease was ours and still live (so it was counted in the endpoint's
//      leases), the endpoint is enabled, its breaker closed, and no other endpoint that may send
//      now has due work (then the slot goes back to the claim, which shares the slots out);
//   3. counts the endpoint's other live leases against its cap — `alonePerEndpoint` while the
//      breaker counts no failure, else the fair share (docs/decisions.md#leases-and-fair-shares) — and leases the oldest due delivery
//      if one is free.
// Taking one lease while giving one up never raises the count: two hand-overs, or a hand-over and
// a claim, racing on one endpoint cannot take it past a cap it was under.
//
// Durability: the statement commits as any ordinary statement does, waiting for the WAL flush (and
// for a synchronous standby, when one is configured). The delivery it hands over was visible to it,
// so the payment commit that queued it wrote its commit record earlier in the WAL, and is on disk
// once this commit returns: no further wait (waitUntilDurable) is needed before sending it (docs/decisions.md#leases-and-fair-shares).
import { randomUUID } from "node:crypto";
import type { Database } from "../db/connect.ts";
import { preparedStatement, runPrepared } from "../db/prepared.ts";
import { type AttemptRecord, type ClaimedDelivery, type LeasedRow, leasedDelivery } from "./delivery-queue.ts";
import { PENDING_ENDPOINTS_WALK, WALKED_ENDPOINTS_THAT_MAY_SEND } from "./endpoint-walk.ts";

/** What a worker passes to let a delivered attempt's slot go to the endpoint's next delivery. */
export interface HandOverPolicy {
  leaseMs: number;
  perEndpoint: number;
  alonePerEndpoint: number;
}

// The walk of endpoints that may send now is the claim's (endpoint-walk.ts); here it stops at the
// first two: an endpoint of the batch is alone unless one of them is another endpoint. The live leases
// are counted on webhook_deliveries_leased alone (migration 0024): a lease is only ever set on a
// pending row, and every change of state clears it.
//
// No step may read the delivery log or the backlog (docs/decisions.md#queue-statements): the batch's own rows are found by an
// array of their ids (the planner takes jsonb_to_recordset for 100 rows and would otherwise hash
// the whole table to join them); the batch's leases are checked on those rows, not through the
// lease index; and the live leases are counted in index order with a LIMIT, so the count is a plain
// index scan, which marks the entries of delivered rows dead as it passes them. A bitmap scan
// cannot, and under a backlog the index holds one such entry for every delivery of the last
// lease time (15,000 read per statement in a 10,000 backlog).
export const RECORD_AND_HAND_OVER = preparedStatement(
  "webhook_record_and_hand_over",
  `WITH input AS (
     SELECT * FROM jsonb_to_recordset($1::jsonb)
       AS i(id text, token text, status_code int, attempted_at timestamptz, latency_ms int, excerpt text, error text)
   ),
   mine AS (
     SELECT d.id FROM webhook_deliveries d JOIN input i ON i.id = d.id AND d.lease_token = i.token
     -- coalesce: an expression the lease index does not cover, so the rows are read by id alone.
     WHERE d.id = ANY (ARRAY(SELECT id FROM input)) AND coalesce(d.lease_until, '-infinity') >= now()
   ),
   updated AS (
     UPDATE webhook_deliveries AS d
     SET attempt_count = d.attempt_count + 1, last_status_code = i.status_code, lease_until = NULL, lease_token = NULL,
         state = 'delivered', delivered_at = now()
     FROM input i
     WHERE d.id = ANY (ARRAY(SELECT id FROM input)) AND d.id = i.id AND d.lease_token = i.token
     RETURNING d.id, d.endpoint_id
   ),
   logged AS (
     INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, latency_ms, response_excerpt, error)
     SELECT id, attempted_at, status_code, latency_ms, excerpt, error FROM input
   ),
   freed AS (
     SELECT u.endpoint_id, count(*)::int AS n FROM updated u JOIN mine m ON m.id = u.id GROUP BY u.endpoint_id
   ),
   ready AS (
     WITH RECURSIVE ${PENDING_ENDPOINTS_WALK}
     ${WALKED_ENDPOINTS_THAT_MAY_SEND}
     LIMIT 2
   ),
   room AS (
     SELECT f.endpoint_id, h.consecutive_failures = 0 AS clean,
            least(f.n,
                  (CASE WHEN h.consecutive_failures = 0 THEN $3::int ELSE $2::int END)
                  - (SELECT count(*) FROM (SELECT 1 FROM webhook_deliveries l
                     WHERE l.endpoint_id = f.endpoint_id AND l.lease_until IS NOT NULL AND l.lease_until >= now()
                       AND l.id NOT IN (SELECT id FROM mine)
                     ORDER BY l.endpoint_id, l.lease_until LIMIT greatest($2::int, $3::int)) AS live)::int) AS free
     FROM freed f
     JOIN webhook_endpoint_health h ON h.endpoint_id = f.endpoint_id AND h.open_until IS NULL
     JOIN webhook_endpoints e ON e.id = f.endpoint_id AND e.enabled
     -- Alone: while another endpoint that may send has due work, every freed slot goes back to the
     -- claim, which shares the slots out (docs/decisions.md#leases-and-fair-shares); handed over, slots that fair shares fill would
     -- never come free and a newcomer would wait for the whole backlog.
     WHERE NOT EXISTS (SELECT 1 FROM ready r WHERE r.endpoint_id <> f.endpoint_id)
   ),
   next AS (
     SELECT c.id
     FROM room
     CROSS JOIN LATERAL (
       SELECT d.id FROM webhook_deliveries d
       WHERE d.endpoint_id = room.endpoint_id AND d.state = 'pending' AND d.next_attempt_at <= now()
         AND (d.lease_until IS NULL OR d.lease_until < now()) AND d.id NOT IN (SELECT id FROM input)
       ORDER BY d.next_attempt_at, d.id
       LIMIT room.free
       FOR UPDATE OF d SKIP LOCKED
     ) c
     WHERE room.free > 0
   ),
   -- By an array of ids, joined to nothing else: the planner cannot tell how few rows next has,
   -- and would otherwise scan the endpoint's deliveries (or the whole table) for them.
   handed AS (
     UPDATE webhook_deliveries AS w
     SET lease_until = now() + $4::double precision * interval '1 millisecond', lease_token = $5::text
     FROM webhook_endpoints AS e
     WHERE w.id = ANY (ARRAY(SELECT id FROM next)) AND e.id = w.endpoint_id
     RETURNING w.id, w.merchant_id, w.endpoint_id, w.event_type, w.payload, w.attempt_count, e.url, e.api_key, e.hmac_key,
               (SELECT room.clean FROM room WHERE room.endpoint_id = w.endpoint_id) AS clean
   )
   SELECT o.owned, handed.id, handed.merchant_id, handed.endpoint_id, handed.event_type, handed.payload, handed.attempt_count,
          handed.url, handed.api_key, handed.hmac_key, false AS probe, handed.clean
   FROM (SELECT coalesce(json_agg(id), '[]'::json) AS owned FROM updated) AS o
   LEFT JOIN handed ON true`,
);

export interface DeliveredAttempt {
  claim: Pick<ClaimedDelivery, "id" | "leaseToken" | "endpointId">;
  attempt: AttemptRecord;
}

/**
 * Records delivered attempts (the callers have updated the breaker, if they had to) and leases, for
 * each endpoint, its next due deliveries for the slots that may go to them. Per attempt, in order:
 * whether the lease was still ours, and the delivery handed over to its slot, to send now.
 */
export async function recordDeliveredAndHandOver(
  db: Database,
  attempts: readonly DeliveredAttempt[],
  policy: HandOverPolicy,
): Promise<{ owned: boolean; next?: ClaimedDelivery }[]> {
  const leaseToken = randomUUID();
  const { rows } = await runPrepared<Omit<LeasedRow, "id"> & { owned: string[]; id: string | null }>(
    db,
    RECORD_AND_HAND_OVER,
    handOverParameters(attempts, policy, leaseToken),
  );
  const owned = new Set(rows[0]?.owned ?? []);
  // The statement hands over at most as many of an endpoint's deliveries as it freed live leases of
  // it; they go to that endpoint's attempts whose lease was ours, one each.
  const handed = new Map<string, ClaimedDelivery[]>();
  for (const row of rows) {
    if (row.id === null) continue;
    const delivery = leasedDelivery({ ...row, id: row.id }, leaseToken);
    handed.set(delivery.endpointId, [...(handed.get(delivery.endpointId) ?? []), delivery]);
  }
  return attempts.map(({ claim }) => {
    if (!owned.has(claim.id)) return { owned: false };
    const next = handed.get(claim.endpointId)?.shift();
    return next ? { owned: true, next } : { owned: true };
  });
}

/** RECORD_AND_HAND_OVER's parameters, in order (exported for the plan test, docs/decisions.md#queue-statements). */
export function handOverParameters(attempts: readonly DeliveredAttempt[], policy: HandOverPolicy, leaseToken: string): unknown[] {
  const input = attempts.map(({ claim, attempt }) => ({
    id: claim.id,
    token: claim.leaseToken,
    status_code: attempt.statusCode,
    attempted_at: attempt.attemptedAt.toISOString(),
    latency_ms: attempt.latencyMs,
    excerpt: attempt.responseExcerpt,
    error: attempt.error,
  }));
  return [JSON.stringify(input), policy.perEndpoint, policy.alonePerEndpoint, policy.leaseMs, leaseToken];
}

interface Waiting extends DeliveredAttempt {
  resolve(result: { owned: boolean; next?: ClaimedDelivery }): void;
  reject(error: unknown): void;
}

/**
 * One worker's delivered attempts, recorded a batch at a time: those that finish while a batch's
 * statement runs go together in the next one (at most `maxBatch`), so a busy worker spends one
 * statement and one commit on many sends, and a quiet one records each send at once.
 */
export class HandOverRecorder {
  readonly #queue: Waiting[] = [];
  #running = false;

  constructor(
    readonly db: Database,
    readonly policy: HandOverPolicy,
    readonly maxBatch: number,
  ) {}

  record(claim: DeliveredAttempt["claim"], attempt: AttemptRecord): Promise<{ owned: boolean; next?: ClaimedDelivery }> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ claim, attempt, resolve, reject });
      if (!this.#running) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#running = true;
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.maxBatch);
      try {
        const results = await recordDeliveredAndHandOver(this.db, batch, this.policy);
        for (const [index, waiting] of batch.entries()) waiting.resolve(results[index]!);
      } catch (error) {
        for (const waiting of batch) waiting.reject(error);
      }
    }
    this.#running = false;
  }
}
