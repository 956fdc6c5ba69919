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

type RecordedOutcome = { recorded: RecordedResult; submission: SubmissionRecord; voidReason: VoidReason | null };

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
  alsoInTransaction: (trx: Transaction<DB>, recorded: RecordedResult, submission: SubmissionRecord) => Promise<void>,
): Promise<RecordedOutcome | undefined> {
  const recorded = await db.transaction().execute(async (trx): Promise<RecordedOutcome | undefined> => {
    // As in reserveSale: the link's row is freed at the commit, and the disk is waited for below.
    await sql`SELECT ${COMMIT_WITHOUT_WAITING}`.execute(trx);
    const current = await trx.selectFrom("submissions").selectAll().where("id", "=", checkoutReference).forUpdate().executeTakeFirst();
    if (!current || (current.state !== "pending" && current.state !== "abandoned")) return undefined;
    const reference = current.link_reference;
    // An abandoned submission's slot was already released by the stale-reservation sweep.
    const holdsSlot = current.state === "pending";
    const releaseSlot = async () => {
      if (holdsSlot) await sql`UPDATE payment_links SET reserved_count = reserved_count - 1 WHERE reference = ${reference}`.execute(trx);
    };

    let recorded: RecordedResult;
    let voidReason: VoidReason | null = null;
    if (outcome.kind === "approved") {
      // Abandoned means the processor already confirmed this attempt reversed (D-039): whatever
      // this approval says, no charge stands behind it, so it can never be a sale.
      if (!holdsSlot) voidReason = "Reversed";
      else {
        // The link must still take payments now, as at the reservation: a disable or an expiry
        // while the card was at the processor voids the approval like a lowered cap.
        const sold = await sql`UPDATE payment_links SET sales_count = sales_count + 1, reserved_count = reserved_count - 1
          WHERE reference = ${reference} AND sales_count < ${SALE_CAP}
            AND NOT disabled AND (valid_until IS NULL OR valid_until > ${now})
          RETURNING reference`.execute(trx);
        if (sold.rows.length === 0) {
          await releaseSlot();
          voidReason = await whyNoSale(trx, reference, now);
        }
      }
      recorded = voidReason === null ? "approved" : "voided";
    } else {
      await releaseSlot();
      recorded = outcome.kind;
    }

    const changes =
      recorded === "approved" && outcome.kind === "approved"
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
    const updated = await trx
      .updateTable("submissions")
      .set({ ...changes, completed_at: now })
      .where("id", "=", checkoutReference)
      .returningAll()
      .executeTakeFirstOrThrow();
    const submission = toSubmission(updated);
    await alsoInTransaction(trx, recorded, submission);
    return { recorded, submission, voidReason };
  });
  if (recorded) await waitUntilDurable(db);
  return recorded;
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
