// The card-testing brake's counters (docs/checkout.md#card-testing-brake). An attempt is
// taken before the processor is called, with one atomic upsert that succeeds only while the
// window's failures plus the attempts still at the processor stay under the limit; it is finished
// after the answer: given back, or kept as a failure. Concurrent posts therefore cannot all pass a
// check none of them has been counted in yet, and instances sharing a PostgreSQL share the count.
//
//   take    in_flight + 1        only while failures + in_flight < limit (or the window has ended: reset)
//   finish  in_flight - 1        and failures + 1 for a decline or a rejected form
import { sql } from "kysely";
import type { Database } from "./connect.ts";
import { runCompiledPrepared } from "./prepared.ts";

export interface AttemptKey {
  /** A keyed hash of the client's address. */
  clientKey: string;
  linkReference: string;
}

/** What finishing an attempt needs: its key and the window it was counted in. */
export interface AttemptTicket extends AttemptKey {
  windowEndsAt: Date;
}

export type TakeResult =
  | { kind: "taken"; ticket: AttemptTicket }
  /** `failures`: the window's failures reached the limit; `in-flight`: attempts at the processor fill what is left. */
  | { kind: "blocked"; because: "failures" | "in-flight"; windowEndsAt: Date };

/** Rows one clean-up statement removes; it repeats while it finds that many. */
const CLEANUP_BATCH = 5000;

// The take and the finish run on every checkout payment: named statements (docs/decisions.md#named-statements).
export async function takeCheckoutAttempt(
  db: Database,
  key: AttemptKey,
  limits: { limit: number; windowMs: number },
  now: Date,
): Promise<TakeResult> {
  const newWindowEndsAt = new Date(now.getTime() + limits.windowMs);
  // ON CONFLICT DO UPDATE locks the row and evaluates its WHERE on the latest committed version,
  // so of N concurrent takes exactly the ones that fit under the limit succeed, on any instance.
  const ended = sql`a.window_ends_at <= ${now}`;
  const taken = await sql<{ window_ends_at: Date }>`
    INSERT INTO checkout_attempts AS a (client_key, link_reference, failures, in_flight, window_ends_at)
    VALUES (${key.clientKey}, ${key.linkReference}, 0, 1, ${newWindowEndsAt})
    ON CONFLICT (client_key, link_reference) DO UPDATE SET
      failures = CASE WHEN ${ended} THEN 0 ELSE a.failures END,
      in_flight = CASE WHEN ${ended} THEN 1 ELSE a.in_flight + 1 END,
      window_ends_at = CASE WHEN ${ended} THEN EXCLUDED.window_ends_at ELSE a.window_ends_at END
    WHERE ${ended} OR a.failures + a.in_flight < ${limits.limit}
    RETURNING window_ends_at`.compile(db);
  const [row] = (await runCompiledPrepared(db, taken)).rows;
  if (row) return { kind: "taken", ticket: { ...key, windowEndsAt: new Date(row.window_ends_at) } };
  // Blocked: read why, for the Retry-After (a row changed meanwhile only makes it a little off).
  const current = await db
    .selectFrom("checkout_attempts")
    .select(["failures", "window_ends_at"])
    .where("client_key", "=", key.clientKey)
    .where("link_reference", "=", key.linkReference)
    .executeTakeFirst();
  return {
    kind: "blocked",
    because: current && current.failures >= limits.limit ? "failures" : "in-flight",
    windowEndsAt: current ? new Date(current.window_ends_at) : now,
  };
}

/**
 * Finishes a taken attempt: it leaves the processor, and counts as a failure if it was one. Only in
 * the window it was taken in: a window that ended meanwhile was reset without it.
 */
export async function finishCheckoutAttempt(db: Database, ticket: AttemptTicket, failed: boolean): Promise<void> {
  const finish = db
    .updateTable("checkout_attempts")
    .set((eb) => ({ in_flight: sql<number>`GREATEST(in_flight - 1, 0)`, failures: eb("failures", "+", failed ? 1 : 0) }))
    .where("client_key", "=", ticket.clientKey)
    .where("link_reference", "=", ticket.linkReference)
    .where("window_ends_at", "=", ticket.windowEndsAt)
    .compile();
  await runCompiledPrepared(db, finish);
}

/** Removes the counters of ended windows; returns how many. */
export async function deleteExpiredCheckoutAttempts(db: Database, now: Date): Promise<number> {
  let removed = 0;
  for (;;) {
    // The outer condition is checked again on a row another instance just renewed: a window
    // reopened since the inner select is kept.
    const result = await sql`
      DELETE FROM checkout_attempts
      WHERE window_ends_at <= ${now}
        AND (client_key, link_reference) IN (
          SELECT client_key, link_reference FROM checkout_attempts WHERE window_ends_at <= ${now} LIMIT ${CLEANUP_BATCH}
        )`.execute(db);
    const count = Number(result.numAffectedRows ?? 0);
    removed += count;
    if (count < CLEANUP_BATCH) return removed;
  }
}
