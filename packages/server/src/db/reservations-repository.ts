// Sale-slot reservations: the sale cap, kept by the database with one atomic UPDATE per step:
//   reserve  reserved_count + 1, only while sales_count + reserved_count < cap (and the link is open)
//   approve  sales_count + 1, reserved_count - 1
//   decline  reserved_count - 1
// The processor is called between the reserve and the result, outside any transaction. A
// reservation whose outcome never arrived (a lost reply, a crashed process) is reversed at the
// processor and then released after RESERVATION_TTL_SECONDS (stale-reservations.ts, run by
// checkout/reconcile.ts), so neither a slot nor a charge is held forever.
import { sql, type Transaction } from "kysely";
import { type CartItem, cartDigest } from "../domain/links/cart.ts";
import { newCheckoutReference } from "../ids.ts";
import type { Database } from "./connect.ts";
import { registerPayfacReference } from "./payfac-references-repository.ts";
import type { DB } from "./schema.ts";
import { type Answer, liveSubmissionForAttempt, type SubmissionRecord, toSubmission } from "./submissions-repository.ts";
import { isUniqueViolation } from "./unique-violation.ts";

/** The most sales a link allows; a tokenize link saves one card. */
const CAP = sql`(CASE WHEN type = 'TokenizeByLink' THEN 1 ELSE COALESCE(max_sales_count, 2147483647) END)`;

export interface NewSubmission {
  linkReference: string;
  /** From the signed form token; null when the client did not send one. */
  attemptKey: string | null;
  answers: Answer[];
  card: { brand: string; masked: string; last4: string; expiry: string };
  now: Date;
  /** The price and cart digest the shopper's page showed (from the signed form token); the link must still ask them. */
  shownPrice: { amount: number; currency: string; cart: string };
}

export type Reservation =
  | { kind: "reserved"; checkoutReference: string; amount: number; currency: string }
  /** This form attempt already has a live (pending or approved) submission. */
  | { kind: "duplicate"; submission: SubmissionRecord }
  /** Disabled, expired, or every slot is sold or held by a payment in flight. */
  | { kind: "unavailable" };

/** The link's items changed since the page was shown: the reservation is rolled back. */
class CartChanged extends Error {}

function storedItems(items: unknown): CartItem[] {
  const parsed: unknown = typeof items === "string" ? JSON.parse(items) : items;
  return Array.isArray(parsed) ? parsed : [];
}

/**
 * Reserves a sale slot and records the pending submission, in one short transaction. Nothing is
 * recorded when no slot is free.
 */
export async function reserveSale(db: Database, input: NewSubmission): Promise<Reservation> {
  try {
    return await db.transaction().execute(async (trx): Promise<Reservation> => {
      if (input.attemptKey !== null) {
        const existing = await liveSubmissionForAttempt(trx, input.linkReference, input.attemptKey);
        if (existing) return { kind: "duplicate", submission: existing };
      }
      const slot = await sql<{ amount: number; currency: string; items: unknown }>`
        UPDATE payment_links SET reserved_count = reserved_count + 1
        WHERE reference = ${input.linkReference}
          AND NOT disabled
          AND (valid_until IS NULL OR valid_until > ${input.now})
          AND sales_count + reserved_count < ${CAP}
          AND amount = ${input.shownPrice.amount} AND currency = ${input.shownPrice.currency}
        RETURNING amount, currency, items`.execute(trx);
      const link = slot.rows[0];
      if (!link) {
        // On PostgreSQL a double-click can wait on the first post's row lock and then find the
        // last slot taken — by itself. This statement sees the first post's commit: answer with it.
        if (input.attemptKey !== null) {
          const earlier = await liveSubmissionForAttempt(trx, input.linkReference, input.attemptKey);
          if (earlier) return { kind: "duplicate", submission: earlier };
        }
        return { kind: "unavailable" };
      }
      // Checked under the row lock the UPDATE took, so the items cannot change before the commit
      // (and after it the held slot keeps them, D-035): other items at the same total roll back.
      if (cartDigest(storedItems(link.items)) !== input.shownPrice.cart) throw new CartChanged();
      const checkoutReference = newCheckoutReference();
      await trx
        .insertInto("submissions")
        .values({
          id: checkoutReference,
          link_reference: input.linkReference,
          answers: JSON.stringify(input.answers),
          amount: link.amount,
          currency: link.currency,
          state: "pending",
          token: null,
          payfac_reference: null,
          auth_code: null,
          reason: null,
          card_brand: input.card.brand,
          card_masked: input.card.masked,
          card_last4: input.card.last4,
          card_expiry: input.card.expiry,
          card_usage: null,
          attempt_key: input.attemptKey,
        })
        .execute();
      return { kind: "reserved", checkoutReference, amount: Number(link.amount), currency: link.currency };
    });
  } catch (error) {
    if (error instanceof CartChanged) return { kind: "unavailable" };
    // Two posts of one form raced past the check above; the unique index let one through.
    if (input.attemptKey !== null && isUniqueViolation(error)) {
      const existing = await liveSubmissionForAttempt(db, input.linkReference, input.attemptKey);
      if (existing) return { kind: "duplicate", submission: existing };
    }
    throw error;
  }
}

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

/**
 * Records the processor's answer in one transaction: submission, counters, and whatever
 * `alsoInTransaction` writes (the webhook outbox rows), so they commit together.
 * Returns undefined when the submission had already been finished (nothing is written).
 */
export async function recordResult(
  db: Database,
  checkoutReference: string,
  outcome: ProcessorOutcome,
  now: Date,
  alsoInTransaction: (trx: Transaction<DB>, recorded: RecordedResult, submission: SubmissionRecord) => Promise<void>,
): Promise<{ recorded: RecordedResult; submission: SubmissionRecord; voidReason: VoidReason | null } | undefined> {
  return db.transaction().execute(async (trx) => {
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
          WHERE reference = ${reference} AND sales_count < ${CAP}
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
    if ("payfacReference" in outcome) await registerPayfacReference(trx, outcome.payfacReference, "link", checkoutReference);
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
