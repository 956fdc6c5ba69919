// Submissions: one per checkout attempt that got a sale slot, from pending to its result. One
// shape for every read, the checkout's and the API's.
import type { Kysely, Selectable } from "kysely";
import type { Database } from "./connect.ts";
import { type PaymentFacts, paymentFactsOf } from "./payment-facts.ts";
import type { DB, SubmissionsTable } from "./schema.ts";

/** Rows one sweep takes on; the next sweep takes the rest. */
const SWEEP_LIMIT = 100;

export interface Answer {
  field: string;
  value: string;
}

export interface SubmissionRecord extends PaymentFacts {
  checkoutReference: string;
  linkReference: string;
  /** The shopper fields the link asked for, as answered. */
  answers: Answer[];
  /** pending (processor being called), approved, declined, failed, abandoned (stale reservation released). */
  state: string;
  completed: boolean;
  amount: number;
  currency: string;
  token: string | null;
  createdAt: Date;
  completedAt: Date | null;
  /** Authorised for manual capture (a session's isManualCapture): the money is reserved, not yet captured. */
  manualCapture: boolean;
}

export function toSubmission(row: Selectable<SubmissionsTable>): SubmissionRecord {
  return {
    checkoutReference: row.id,
    linkReference: row.link_reference,
    answers: row.answers as Answer[],
    state: row.state,
    completed: row.completed,
    amount: row.amount,
    currency: row.currency,
    token: row.token,
    ...paymentFactsOf(row),
    createdAt: row.created_at,
    completedAt: row.completed_at,
    manualCapture: row.manual_capture,
  };
}

export async function findSubmission(
  db: Database,
  linkReference: string,
  checkoutReference: string,
): Promise<SubmissionRecord | undefined> {
  const row = await db
    .selectFrom("submissions")
    .selectAll()
    .where("id", "=", checkoutReference)
    .where("link_reference", "=", linkReference)
    .executeTakeFirst();
  return row && toSubmission(row);
}

/** The pending or approved submission of one form attempt: a second post of that form must not pay again. */
export async function liveSubmissionForAttempt(
  db: Kysely<DB>,
  linkReference: string,
  attemptKey: string,
): Promise<SubmissionRecord | undefined> {
  const row = await db
    .selectFrom("submissions")
    .selectAll()
    .where("link_reference", "=", linkReference)
    .where("attempt_key", "=", attemptKey)
    .where("state", "in", ["pending", "approved"])
    .executeTakeFirst();
  return row && toSubmission(row);
}

/** Voided approvals whose cancel the processor has not confirmed yet: [checkoutReference, payfacReference]. */
export async function findPendingCancels(
  db: Database,
  hosted = false,
): Promise<Array<{ checkoutReference: string; payfacReference: string }>> {
  const rows = await db
    .selectFrom("submissions")
    .select(["id", "payfac_reference"])
    .where("cancel_pending", "=", true)
    // An approval on a processor's own page is cancelled through that processor (services/hosted-payment.ts).
    .where("hosted_until", hosted ? "is not" : "is", null)
    .orderBy("created_at")
    .limit(SWEEP_LIMIT)
    .execute();
  return rows.flatMap((row) => (row.payfac_reference ? [{ checkoutReference: row.id, payfacReference: row.payfac_reference }] : []));
}

/** The processor confirmed the cancel of a voided approval: nothing is owed any more. */
export async function markCancelConfirmed(db: Database, checkoutReference: string): Promise<void> {
  await db.updateTable("submissions").set({ cancel_pending: false }).where("id", "=", checkoutReference).execute();
}
