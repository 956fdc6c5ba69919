// Reservations whose outcome never arrived (a lost reply, a process that died between the charge
// and writing its result): found once older than the TTL, and abandoned with their slot released
// only after the processor confirmed the attempt reversed (checkout/reconcile.ts).
import { sql } from "kysely";
import type { Database } from "./connect.ts";

/** Longer than any processor call may take (the checkout gives up on the processor after a minute). */
export const RESERVATION_TTL_SECONDS = 15 * 60;

/** Rows one sweep takes on; the next sweep takes the rest. */
const SWEEP_LIMIT = 100;

/**
 * Reservations older than the TTL, oldest first: their outcome never arrived (their process died
 * between reserve and result, or the processor's reply was lost). The reconciler reverses them.
 */
export async function findStalePendingSubmissions(db: Database, linkReference?: string): Promise<string[]> {
  let query = db
    .selectFrom("submissions")
    .select("id")
    .where("state", "=", "pending")
    .where("created_at", "<", sql<Date>`now() - (${RESERVATION_TTL_SECONDS} * interval '1 second')`);
  if (linkReference !== undefined) query = query.where("link_reference", "=", linkReference);
  const rows = await query.orderBy("created_at").limit(SWEEP_LIMIT).execute();
  return rows.map((row) => row.id);
}

/**
 * Gives up a pending submission whose outcome never arrived (after the processor confirmed the
 * attempt is reversed): `abandoned`, and its slot released — in one statement, and only if it is
 * still pending, so a result recorded meanwhile wins.
 */
export async function abandonSubmission(db: Database, checkoutReference: string): Promise<boolean> {
  const result = await sql<{ released: number }>`
    WITH stale AS (
      UPDATE submissions SET state = 'abandoned', reason = 'Abandoned', completed_at = now()
      WHERE id = ${checkoutReference} AND state = 'pending'
      RETURNING link_reference
    ), released AS (
      UPDATE payment_links SET reserved_count = reserved_count - 1
      WHERE reference IN (SELECT link_reference FROM stale)
      RETURNING reference
    )
    SELECT count(*)::int AS released FROM stale`.execute(db);
  return Number(result.rows[0]?.released ?? 0) > 0;
}
