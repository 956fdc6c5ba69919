// Sale-slot reservations: the sale cap, kept by the database with one atomic UPDATE per step:
//   reserve  reserved_count + 1, only while sales_count + reserved_count < cap (and the link is open;
//            reserve-sale.ts)
//   approve  sales_count + 1, reserved_count - 1
//   decline  reserved_count - 1
// The processor is called between the reserve and the result, outside any transaction. A
// reservation whose outcome never arrived (a lost reply, a crashed process) is reversed at the
// processor and then released after RESERVATION_TTL_SECONDS (stale-reservations.ts, run by
// checkout/reconcile.ts), so neither a slot nor a charge is held forever.
import { sql, type Transaction } from "kysely";
import type { Database } from "./connect.ts";
import { COMMIT_WITHOUT_WAITING, waitUntilDurable } from "./durable-commit.ts";
import { registerPayfacReference } from "./payfac-references-repository.ts";
import { SALE_CAP } from "./sale-cap.ts";
import type { DB } from "./schema.ts";
import { type SubmissionRecord, toSubmission } from "./submissions-repository.ts";

export type ProcessorOutcome =
  | { kind: "approved"; payfacReference: string; authCode: string; token: string | null; cardBrand: string; cardUsage: string }
  | { kind: "declined"; payfacReference: string; reason: string; cardBrand: string; cardUsage: string }
  /** The processor could not be reached or did not answer in time: no outcome known. */
  | { kind: "failed"; reason: string };

/**
 * What was recorded: `voided` is an approval that could not become a sale; the caller cancels it
 * at the processor.
 */
export type RecordedResult = "approved" | "declined" | "failed" | "voided";

/**
 * Why an approval became no sale, stored as the submission's reason: the merchant lowered the cap,
 * disabled the link, or the link expired while the card was being charged; or the attempt had
 * already been reversed and abandoned by the reconciler (the processor confirmed nothing stands).
 */
export type VoidReason = "Sold out" | "Link disabled" | "Link expired" | "Reversed";

export type RecordedOutcome = { recorded: RecordedResult; submission: SubmissionRecord; voidReason: VoidReason | null };
type AlsoInTransaction = (trx: Transaction<DB>, recorded: RecordedResult, submission: SubmissionRecord) => Promise<void>;

/** The common case turned out not to apply (no sale for this approval, or an abandoned attempt): rolled back. */
class NotTheCommonCase extends Error {}

/**
 * Records the processor's answer in one transaction: submission, counters, and whatever
 * `alsoInTransaction` writes (the webhook outbox rows), so they commit together.
 * Returns undefined when the submission had already been finished (nothing is written).
 * A result is on disk when this returns (D-200).
 */
export async function recordResult(
  db: Database,
  checkoutReference: string,
  outcome: ProcessorOutcome,
  now: Date,
  alsoInTransaction: AlsoInTransaction,
): Promise<RecordedOutcome | undefined> {
  let recorded: RecordedOutcome | undefined;
  try {
    recorded = await db.transaction().execute((trx) => recordLinkLast(trx, checkoutReference, outcome, now, alsoInTransaction));
  } catch (error) {
    if (!(error instanceof NotTheCommonCase)) throw error;
    recorded = await db.transaction().execute((trx) => recordLinkFirst(trx, checkoutReference, outcome, now, alsoInTransaction));
  }
  if (recorded) await waitUntilDurable(db);
  return recorded;
}

/** The submission, locked, if its result is still to be written; the transaction's commit will not wait for the disk. */
async function lockUnfinished(trx: Transaction<DB>, checkoutReference: string) {
  const current = await trx
    .selectFrom("submissions")
    .selectAll()
    .where("id", "=", checkoutReference)
    // The link's row is freed at the commit, and recordResult waits for the disk afterwards.
    .where(COMMIT_WITHOUT_WAITING, "is not", null)
    .forUpdate()
    .executeTakeFirst();
  return current && (current.state === "pending" || current.state === "abandoned") ? current : undefined;
}

/**
 * The common case (a pending attempt; an approval the link can still take, or a decline or
 * failure): the submission and the outbox rows first, the link's row last (D-202), so the row every
 * payment of the link updates is held only from that statement to the commit. An approval the link
 * can no longer take rolls everything back for recordLinkFirst.
 */
async function recordLinkLast(
  trx: Transaction<DB>,
  checkoutReference: string,
  outcome: ProcessorOutcome,
  now: Date,
  alsoInTransaction: AlsoInTransaction,
): Promise<RecordedOutcome | undefined> {
  const recorded: RecordedResult = outcome.kind;
  // Written only while still pending, which locks the attempt in the same statement. Not pending
  // (finished by another post, or abandoned) is left to recordLinkFirst.
  const submission = await writeSubmission(trx, checkoutReference, recorded, outcome, null, now, "only if pending");
  if (!submission) throw new NotTheCommonCase();
  await alsoInTransaction(trx, recorded, submission);
  const reference = submission.linkReference;
  if (outcome.kind === "approved") {
    if (!(await takeSale(trx, reference, now))) throw new NotTheCommonCase();
  } else await sql`UPDATE payment_links SET reserved_count = reserved_count - 1 WHERE reference = ${reference}`.execute(trx);
  return { recorded, submission, voidReason: null };
}

/** The held slot becomes a sale if the link still takes payments now, as at the reservation (D-151). */
async function takeSale(trx: Transaction<DB>, reference: string, now: Date): Promise<boolean> {
  const sold = await sql`UPDATE payment_links SET sales_count = sales_count + 1, reserved_count = reserved_count - 1
    WHERE reference = ${reference} AND sales_count < ${SALE_CAP}
      AND NOT disabled AND (valid_until IS NULL OR valid_until > ${now})
    RETURNING reference`.execute(trx);
  return sold.rows.length > 0;
}

/** Every case, the link's row first: what the outbox says depends on whether the approval is a sale. */
async function recordLinkFirst(
  trx: Transaction<DB>,
  checkoutReference: string,
  outcome: ProcessorOutcome,
  now: Date,
  alsoInTransaction: AlsoInTransaction,
): Promise<RecordedOutcome | undefined> {
  const current = await lockUnfinished(trx, checkoutReference);
  if (!current) return undefined;
  const reference = current.link_reference;
  // An abandoned submission's slot was already released by the stale-reservation sweep.
  const holdsSlot = current.state === "pending";
  const releaseSlot = async () => {
    if (holdsSlot) await sql`UPDATE payment_links SET reserved_count = reserved_count - 1 WHERE reference = ${reference}`.execute(trx);
  };

  let voidReason: VoidReason | null = null;
  if (outcome.kind === "approved") {
    // Abandoned means the processor already confirmed this attempt reversed (D-039): whatever
    // this approval says, no charge stands behind it, so it can never be a sale.
    if (!holdsSlot) voidReason = "Reversed";
    else if (!(await takeSale(trx, reference, now))) {
      // A disable or an expiry while the card was at the processor voids the approval like a lowered cap.
      await releaseSlot();
      voidReason = await whyNoSale(trx, reference, now);
    }
  } else await releaseSlot();
  const recorded: RecordedResult = outcome.kind === "approved" ? (voidReason === null ? "approved" : "voided") : outcome.kind;
  const submission = await writeSubmission(trx, checkoutReference, recorded, outcome, voidReason, now, "locked");
  if (!submission) throw new Error("a locked submission was not found");
  await alsoInTransaction(trx, recorded, submission);
  return { recorded, submission, voidReason };
}

async function writeSubmission(
  trx: Transaction<DB>,
  checkoutReference: string,
  recorded: RecordedResult,
  outcome: ProcessorOutcome,
  voidReason: VoidReason | null,
  now: Date,
  condition: "locked" | "only if pending",
): Promise<SubmissionRecord | undefined> {
  const changes = resultColumns(recorded, outcome, voidReason);
  let update = trx
    .updateTable("submissions")
    .set({ ...changes, completed_at: now })
    .where("id", "=", checkoutReference);
  // The first statement of recordLinkLast's transaction: its commit does not wait for the disk either.
  if (condition === "only if pending") update = update.where("state", "=", "pending").where(COMMIT_WITHOUT_WAITING, "is not", null);
  const updated = await update.returningAll().executeTakeFirst();
  if (!updated) return undefined;
  // The processor's reference is held once across link sales and token charges (D-211).
  if ("payfacReference" in outcome) await registerPayfacReference(trx, outcome.payfacReference, "link", checkoutReference);
  return toSubmission(updated);
}

/** The submission's columns a recorded result writes (besides completed_at). */
export function resultColumns(recorded: RecordedResult, outcome: ProcessorOutcome, voidReason: VoidReason | null) {
  return recorded === "approved" && outcome.kind === "approved"
    ? {
        state: "approved",
        completed: true,
        token: outcome.token,
        payfac_reference: outcome.payfacReference,
        auth_code: outcome.authCode,
        reason: null,
        card_brand: outcome.cardBrand,
        card_usage: outcome.cardUsage,
      }
    : outcome.kind === "approved"
      ? {
          state: "failed",
          completed: false,
          payfac_reference: outcome.payfacReference,
          reason: voidReason,
          card_brand: outcome.cardBrand,
          card_usage: outcome.cardUsage,
          // Committed with the result: the cancel is owed even if this process dies next.
          cancel_pending: true,
        }
      : outcome.kind === "declined"
        ? {
            state: "declined",
            completed: false,
            payfac_reference: outcome.payfacReference,
            reason: outcome.reason,
            card_brand: outcome.cardBrand,
            card_usage: outcome.cardUsage,
          }
        : { state: "failed", completed: false, reason: outcome.reason };
}

/** Why a held slot could not become a sale, in the order the link's status is derived. */
async function whyNoSale(trx: Transaction<DB>, reference: string, now: Date): Promise<VoidReason> {
  const link = await trx
    .selectFrom("payment_links")
    .select(["disabled", "valid_until"])
    .where("reference", "=", reference)
    .executeTakeFirst();
  if (link?.disabled) return "Link disabled";
  if (link?.valid_until && link.valid_until.getTime() <= now.getTime()) return "Link expired";
  return "Sold out";
}
