// Taking a sale slot: one statement that looks for this form attempt's live submission, takes a slot
// on the link's row (reserved_count + 1, only while sales_count + reserved_count < cap, the link is
// open and still asks the price the page showed) and inserts the pending submission (D-032, D-201).
// A single statement holds the link's row, which every payment of the link updates, only while it
// runs: no round trip to Paylink happens under the lock. Its commit does not wait for the disk;
// reserveSale waits once the row is free (D-200).
import { sql } from "kysely";
import { type CartItem, cartDigest } from "../domain/links/cart.ts";
import { newCheckoutReference } from "../ids.ts";
import type { Database } from "./connect.ts";
import { COMMIT_WITHOUT_WAITING_TEXT, waitUntilDurable } from "./durable-commit.ts";
import { preparedStatement, runPrepared } from "./prepared.ts";
import { SALE_CAP_TEXT } from "./sale-cap.ts";
import { type Answer, liveSubmissionForAttempt, type SubmissionRecord } from "./submissions-repository.ts";
import { isUniqueViolation } from "./unique-violation.ts";

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

function storedItems(items: unknown): CartItem[] {
  const parsed: unknown = typeof items === "string" ? JSON.parse(items) : items;
  return Array.isArray(parsed) ? parsed : [];
}

type Taken = { earlier: string | null; amount: number | null; currency: string | null; items: unknown };

/** The reservation's statement, prepared on PostgreSQL (D-232). */
const TAKE_SLOT = preparedStatement(
  "checkout_take_slot",
  `WITH earlier AS (
     SELECT id FROM submissions
     WHERE link_reference = $1 AND attempt_key = $2 AND state IN ('pending', 'approved')
     LIMIT 1
   ), slot AS (
     UPDATE payment_links SET reserved_count = reserved_count + 1
     WHERE reference = $1
       AND NOT disabled
       AND (valid_until IS NULL OR valid_until > $3)
       AND sales_count + reserved_count < ${SALE_CAP_TEXT}
       AND amount = $4 AND currency = $5
       AND NOT EXISTS (SELECT 1 FROM earlier)
       AND ${COMMIT_WITHOUT_WAITING_TEXT} IS NOT NULL
     RETURNING amount, currency, items
   ), pending AS (
     INSERT INTO submissions (id, link_reference, answers, amount, currency, state,
                              card_brand, card_masked, card_last4, card_expiry, attempt_key)
     SELECT $6, $1, $7::jsonb, amount, currency, 'pending', $8, $9, $10, $11, $2
     FROM slot
     RETURNING id
   )
   SELECT (SELECT id FROM earlier) AS earlier, slot.amount, slot.currency, slot.items
   FROM (SELECT 1) AS one LEFT JOIN slot ON true`,
);

/**
 * Reserves a sale slot and records the pending submission. Nothing is recorded when no slot is
 * free. A reservation is on disk when this returns, before any processor is called.
 */
export async function reserveSale(db: Database, input: NewSubmission): Promise<Reservation> {
  const checkoutReference = newCheckoutReference();
  let taken: Taken | undefined;
  try {
    const result = await runPrepared<Taken>(db, TAKE_SLOT, [
      input.linkReference,
      input.attemptKey,
      input.now,
      input.shownPrice.amount,
      input.shownPrice.currency,
      checkoutReference,
      JSON.stringify(input.answers),
      input.card.brand,
      input.card.masked,
      input.card.last4,
      input.card.expiry,
    ]);
    taken = result.rows[0];
  } catch (error) {
    // Two posts of one form raced past the attempt check; the unique index let one through.
    if (!(input.attemptKey !== null && isUniqueViolation(error))) throw error;
  }
  if (taken?.amount != null && taken.currency != null) {
    // The slot holds the items from now on (D-035); other items at the same total than the page
    // showed (changed between the page's check and this statement) give the slot straight back.
    if (cartDigest(storedItems(taken.items)) !== input.shownPrice.cart) {
      await giveBackUnusedSlot(db, checkoutReference);
      return { kind: "unavailable" };
    }
    await waitUntilDurable(db);
    return { kind: "reserved", checkoutReference, amount: Number(taken.amount), currency: taken.currency };
  }
  // No slot: this attempt's earlier post may hold it. On PostgreSQL a double-click can wait on the
  // first post's row lock and then find the last slot taken, by itself; the statement's snapshot
  // predates that commit, so the attempt is looked up again.
  if (input.attemptKey !== null) {
    const earlier = await liveSubmissionForAttempt(db, input.linkReference, input.attemptKey);
    if (earlier) return { kind: "duplicate", submission: earlier };
  }
  return { kind: "unavailable" };
}

/** Undoes a reservation no processor was called for: the pending row goes, its slot is released. */
async function giveBackUnusedSlot(db: Database, checkoutReference: string): Promise<void> {
  await sql`
    WITH unused AS (DELETE FROM submissions WHERE id = ${checkoutReference} AND state = 'pending' RETURNING link_reference)
    UPDATE payment_links SET reserved_count = reserved_count - 1 WHERE reference IN (SELECT link_reference FROM unused)`.execute(db);
}
