// A checkout attempt's sale slot, from its reservation to its result (docs/checkout.md#sale-cap-and-payments-in-flight):
//   reserve  reserved_count + 1, only while sales_count + reserved_count < cap and the link is open
//   sale     sales_count + 1, reserved_count - 1, only while the link is still open
//   release  reserved_count - 1 (a decline, a failure, a voided approval, an abandoned attempt)
// The processor is called between the reservation and the result, outside any transaction. Every
// writer locks the submission first and the link's row last: the row every payment of a link
// updates is held for one statement and its commit, never across a round trip to Paylink.
import { type Selectable, sql } from "kysely";
import { type CartItem, cartDigest } from "../domain/links/cart.ts";
import type { LinkType } from "../domain/links/types.ts";
import type { PaymentDecision, ProcessorOutcome, RecordedResult, VoidReason } from "../domain/payments/payment-outcome.ts";
import { newCheckoutReference } from "../ids.ts";
import { type PaymentMail, paymentMailInsertSql } from "../mail/outbox.ts";
import { outboxInsertSql } from "../webhooks/outbox.ts";
import type { Database } from "./connect.ts";
import { COMMIT_WITHOUT_WAITING, waitUntilDurable } from "./durable-commit.ts";
import { openForSaleSql, SALE_CAP } from "./link-status.ts";
import { PAYMENT_FACT_COLUMNS } from "./payment-facts.ts";
import { runCompiledPrepared } from "./prepared.ts";
import type { PaymentLinksTable, SubmissionsTable } from "./schema.ts";
import { type Answer, liveSubmissionForAttempt, type SubmissionRecord, toSubmission } from "./submissions-repository.ts";
import { isUniqueViolation } from "./unique-violation.ts";

/** Longer than any processor call may take (the checkout gives up on the processor after a minute). */
export const RESERVATION_TTL_SECONDS = 15 * 60;

/** Rows one sweep takes on; the next sweep takes the rest. */
const SWEEP_LIMIT = 100;

export interface NewSubmission {
  linkReference: string;
  /** From the signed form token; null when the client did not send one. */
  attemptKey: string | null;
  answers: Answer[];
  /** What the form showed of the card; null when the shopper pays on the processor's page. */
  card: { brand: string; masked: string; last4: string; expiry: string } | null;
  now: Date;
  /** For a payment on the processor's page: until when that page takes it (the slot is held that long). */
  hostedUntil?: Date | null;
  /** The price and cart digest the shopper's page showed (from the signed form token); the link must still ask them. */
  shownPrice: { amount: number; currency: string; cart: string };
  /** The saved card's token this attempt charges; absent when a card was typed in. */
  paidWithToken?: string | null;
}

export type Reservation =
  /** `attempt` is the pending submission and its link as the reservation left them. */
  | { kind: "reserved"; checkoutReference: string; amount: number; currency: string; attempt: UnfinishedAttempt }
  /** This form attempt already has a live (pending or approved) submission. */
  | { kind: "duplicate"; submission: SubmissionRecord }
  /** Disabled, expired, or every slot is sold or held by a payment in flight. */
  | { kind: "unavailable" };

/**
 * Takes a sale slot and inserts the pending submission, in one statement (so the link's row is
 * held only while it runs), unless this form attempt already has a live submission or the link no
 * longer asks the price the page showed. Nothing is recorded when no slot is free.
 */
export async function reserveSale(db: Database, input: NewSubmission): Promise<Reservation> {
  const checkoutReference = newCheckoutReference();
  const { linkReference, attemptKey, card, shownPrice } = input;
  let taken: (AttemptRow & { items: unknown }) | undefined;
  try {
    const query = sql<AttemptRow & { items: unknown }>`
      WITH earlier AS (
        SELECT 1 FROM submissions
        WHERE link_reference = ${linkReference} AND attempt_key = ${attemptKey} AND state IN ('pending', 'approved')
      ), slot AS (
        UPDATE payment_links SET reserved_count = reserved_count + 1
        WHERE reference = ${linkReference} AND ${openForSaleSql(input.now)}
          AND sales_count + reserved_count < ${SALE_CAP}
          AND amount = ${shownPrice.amount} AND currency = ${shownPrice.currency}
          AND NOT EXISTS (SELECT 1 FROM earlier)
          AND NOT EXISTS (SELECT 1 FROM disabled_tokens WHERE token = ${input.paidWithToken ?? null})
          AND ${COMMIT_WITHOUT_WAITING}
        RETURNING amount, currency, items, is_manual_capture, ${sql.join(LINK_STATUS_COLUMNS.map((column) => sql.ref(column)))}
      ), pending AS (
        INSERT INTO submissions (id, link_reference, answers, amount, currency, state,
                                 card_brand, card_masked, card_last4, card_expiry, attempt_key, manual_capture, paid_with_token,
                                 hosted_until)
        SELECT ${checkoutReference}, ${linkReference}, ${JSON.stringify(input.answers)}::jsonb, amount, currency, 'pending',
               ${card?.brand ?? null}, ${card?.masked ?? null}, ${card?.last4 ?? null}, ${card?.expiry ?? null}, ${attemptKey},
               is_manual_capture, ${input.paidWithToken ?? null}, ${input.hostedUntil ?? null}::timestamptz
        FROM slot
        RETURNING ${sql.join(SUBMISSION_COLUMNS.map((column) => sql.ref(column)))}
      )
      SELECT pending.*, slot.items, ${sql.join(LINK_STATUS_COLUMNS.map((column) => sql.ref(`slot.${column}`)))}
      FROM pending, slot`.compile(db);
    const result = await runCompiledPrepared(db, query);
    taken = result.rows[0];
  } catch (error) {
    // Two posts of one form raced past the attempt check; the unique index let one through.
    if (!(attemptKey !== null && isUniqueViolation(error))) throw error;
  }
  if (taken) {
    // The slot holds the items from now on; other items at the same total than the page showed
    // (changed between the page's check and this statement) give the slot straight back.
    if (cartDigest(storedItems(taken.items)) !== shownPrice.cart) {
      await giveBackUnusedSlot(db, checkoutReference);
      return { kind: "unavailable" };
    }
    // On disk before any processor is called.
    await waitUntilDurable(db);
    const { items: _, ...row } = taken;
    const attempt = toUnfinishedAttempt(row);
    return { kind: "reserved", checkoutReference, amount: Number(taken.amount), currency: taken.currency, attempt };
  }
  // No slot: this attempt's earlier post may hold it. On PostgreSQL a double-click can wait on the
  // first post's row lock and then find the last slot taken, by itself; the statement's snapshot
  // predates that commit, so the attempt is looked up again.
  if (attemptKey !== null) {
    const earlier = await liveSubmissionForAttempt(db, linkReference, attemptKey);
    if (earlier) return { kind: "duplicate", submission: earlier };
  }
  return { kind: "unavailable" };
}

function storedItems(items: unknown): CartItem[] {
  const parsed: unknown = typeof items === "string" ? JSON.parse(items) : items;
  return Array.isArray(parsed) ? parsed : [];
}

/** Undoes a reservation no processor was called for: the pending row goes, its slot is released. */
async function giveBackUnusedSlot(db: Database, checkoutReference: string): Promise<void> {
  await sql`
    WITH unused AS (DELETE FROM submissions WHERE id = ${checkoutReference} AND state = 'pending' RETURNING link_reference)
    UPDATE payment_links SET reserved_count = reserved_count - 1 WHERE reference IN (SELECT link_reference FROM unused)`.execute(db);
}

/** An attempt whose result is still to be written, with what its link's status is read from. */
export interface UnfinishedAttempt {
  submission: Selectable<SubmissionsTable> & { state: "pending" | "abandoned" };
  link: { terms: { type: LinkType; maxSalesCount: number | null; validUntil: Date | null }; disabled: boolean; salesCount: number };
}

/** The attempt and its link's status columns, as they stand; undefined when its result was already written. */
/** A submission's columns, named: a prepared `SELECT *` breaks when a migration adds a column. */
const SUBMISSION_COLUMNS = [
  "id",
  "link_reference",
  "answers",
  "amount",
  "currency",
  "state",
  "completed",
  "token",
  ...PAYMENT_FACT_COLUMNS,
  "created_at",
  "completed_at",
  "attempt_key",
  "cancel_pending",
  "manual_capture",
] as const satisfies readonly (keyof SubmissionsTable)[];

/** The link's columns its status is read from. */
const LINK_STATUS_COLUMNS = ["type", "max_sales_count", "valid_until", "disabled", "sales_count"] as const;

type AttemptRow = Pick<Selectable<SubmissionsTable>, (typeof SUBMISSION_COLUMNS)[number]> &
  Pick<Selectable<PaymentLinksTable>, (typeof LINK_STATUS_COLUMNS)[number]>;

function toUnfinishedAttempt(row: AttemptRow): UnfinishedAttempt {
  const { type, max_sales_count, valid_until, disabled, sales_count, ...submission } = row;
  return {
    submission: submission as UnfinishedAttempt["submission"],
    link: { terms: { type: type as LinkType, maxSalesCount: max_sales_count, validUntil: valid_until }, disabled, salesCount: sales_count },
  };
}

export async function findUnfinishedAttempt(db: Database, checkoutReference: string): Promise<UnfinishedAttempt | undefined> {
  const query = db
    .selectFrom("submissions as s")
    .innerJoin("payment_links as l", "l.reference", "s.link_reference")
    .select(SUBMISSION_COLUMNS.map((column) => `s.${column}` as const))
    .select(LINK_STATUS_COLUMNS.map((column) => `l.${column}` as const))
    .where("s.id", "=", checkoutReference)
    .where("s.state", "in", ["pending", "abandoned"]);
  // Named, like the write that follows it: on the embedded database parsing it on every payment
  // cost a millisecond of CPU.
  const [row] = (await runCompiledPrepared(db, query.compile())).rows;
  return row ? toUnfinishedAttempt(row as AttemptRow) : undefined;
}

export interface ResultToWrite {
  /** The attempt as read; written only while it is still in that state. */
  attempt: UnfinishedAttempt["submission"];
  decision: PaymentDecision;
  outcome: ProcessorOutcome;
  merchantId: string;
  /** The webhook messages of the result. */
  events: Array<{ eventType: string; message: unknown }>;
  /** The mail of the result (receipt, "you got paid"), rendered: queued with it. */
  mail: PaymentMail;
  now: Date;
}

/** The submission as writeResult leaves it, for the messages written with it. */
export function afterResult(input: Omit<ResultToWrite, "events" | "merchantId" | "mail">): SubmissionRecord {
  const { attempt, decision, outcome, now } = input;
  return toSubmission({ ...attempt, ...resultColumns(decision.recorded, outcome, decision.voidReason), completed_at: now });
}

/**
 * Writes a result in one statement, which is its own transaction: the submission locked first, the
 * link's row last (the sale only while the link is still open, or the slot released), the
 * payfacReference, the webhook outbox rows and the mail outbox rows. The link's row, which every payment of the link
 * updates, is held only while PostgreSQL runs the statement and writes its commit, never across a
 * round trip to Paylink or the disk flush (db/durable-commit.ts). Nothing is written, and false returned, when the attempt is no longer as read
 * or the link closed before the sale: the caller reads and decides again.
 */
export async function writeResult(db: Database, input: ResultToWrite): Promise<boolean> {
  const { attempt, decision, outcome, now } = input;
  const sale = decision.recorded === "approved";
  const columns = { ...resultColumns(decision.recorded, outcome, decision.voidReason), completed_at: now };
  const set = sql.join(Object.entries(columns).map(([column, value]) => sql`${sql.ref(column)} = ${value}`));
  const slot = !decision.holdsSlot
    ? sql`SELECT ${attempt.link_reference} AS reference`
    : sale
      ? sql`UPDATE payment_links SET sales_count = sales_count + 1, reserved_count = reserved_count - 1
            WHERE reference = ${attempt.link_reference} AND ${openForSaleSql(now)} AND EXISTS (SELECT 1 FROM attempt) RETURNING reference`
      : sql`UPDATE payment_links SET reserved_count = reserved_count - 1
            WHERE reference = ${attempt.link_reference} AND EXISTS (SELECT 1 FROM attempt) RETURNING reference`;
  const payfacReference = "payfacReference" in outcome ? outcome.payfacReference : null;
  const query = sql<{ id: string }>`
    WITH attempt AS (
      SELECT id FROM submissions WHERE id = ${attempt.id} AND state = ${attempt.state} AND ${COMMIT_WITHOUT_WAITING} FOR UPDATE
    ), slot AS (${slot}
    ), result AS (
      UPDATE submissions SET ${set}
      WHERE id IN (SELECT id FROM attempt) AND EXISTS (SELECT 1 FROM slot)
      RETURNING id
    ), reference AS (
      INSERT INTO payfac_references (payfac_reference, source, checkout_reference)
      SELECT ${payfacReference}, 'link', id FROM result WHERE ${payfacReference}::text IS NOT NULL
    ), outbox AS (${outboxInsertSql(input.merchantId, input.events, sql`EXISTS (SELECT 1 FROM result)`)}
    ), mail AS (${paymentMailInsertSql(input.merchantId, input.mail.messages, input.mail.perUser, sql`EXISTS (SELECT 1 FROM result)`)}
    )
    SELECT id FROM result`.compile(db);
  const written = await runCompiledPrepared(db, query);
  if (written.rows.length === 0) return false;
  // On disk before the shopper is answered or the worker sends the webhook.
  await waitUntilDurable(db);
  return true;
}

/** The submission's columns a recorded result writes (besides completed_at). */
function resultColumns(recorded: RecordedResult, outcome: ProcessorOutcome, voidReason: VoidReason | null) {
  if (outcome.kind === "failed") return { state: "failed", completed: false, reason: outcome.reason };
  const card = {
    payfac_reference: outcome.payfacReference,
    card_brand: outcome.cardBrand,
    card_usage: outcome.cardUsage,
    // A processor's own page reports the card with its outcome; Paylink's form stored it at the reservation.
    ...(outcome.card ? { card_masked: outcome.card.masked, card_last4: outcome.card.last4, card_expiry: outcome.card.expiry } : {}),
  };
  if (outcome.kind === "declined") return { ...card, state: "declined", completed: false, reason: outcome.reason };
  if (recorded === "approved") {
    return { ...card, state: "approved", completed: true, token: outcome.token, auth_code: outcome.authCode, reason: null };
  }
  // Committed with the result: the cancel is owed even if this process dies next.
  return { ...card, state: "failed", completed: false, reason: voidReason, cancel_pending: true };
}

/**
 * Reservations older than the TTL, oldest first: their outcome never arrived (their process died
 * between reserve and result, or the processor's reply was lost). The reconciler reverses them.
 */
export async function findStalePendingSubmissions(
  db: Database,
  linkReference?: string,
): Promise<Array<{ checkoutReference: string; paidWithToken: string | null }>> {
  let query = db
    .selectFrom("submissions")
    .select(["id", "paid_with_token"])
    .where("state", "=", "pending")
    // A payment on the processor's page is settled by asking the processor (services/hosted-payment.ts).
    .where("hosted_until", "is", null)
    .where("created_at", "<", sql<Date>`now() - (${RESERVATION_TTL_SECONDS} * interval '1 second')`);
  if (linkReference !== undefined) query = query.where("link_reference", "=", linkReference);
  const rows = await query.orderBy("created_at").limit(SWEEP_LIMIT).execute();
  return rows.map((row) => ({ checkoutReference: row.id, paidWithToken: row.paid_with_token }));
}

/**
 * Gives up a pending submission whose outcome never arrived (after the processor confirmed the
 * attempt is reversed): `abandoned`, and its slot released, in one statement (the submission
 * first, the link last), and only if it is still pending, so a result recorded meanwhile wins.
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

/** An attempt paid on a processor's own page, as its reconciliation needs it. */
export interface HostedAttempt {
  checkoutReference: string;
  linkReference: string;
  state: string;
  processorReference: string | null;
  redirectUrl: string | null;
  hostedUntil: Date;
}

/** Remembers the processor's page of a hosted attempt, once the processor created it. */
export async function recordHostedStart(
  db: Database,
  checkoutReference: string,
  start: { processorReference: string; redirectUrl: string },
): Promise<void> {
  await db
    .updateTable("submissions")
    .set({ processor_reference: start.processorReference, redirect_url: start.redirectUrl })
    .where("id", "=", checkoutReference)
    .execute();
}

const hostedAttemptColumns = ["id", "link_reference", "state", "processor_reference", "redirect_url", "hosted_until"] as const;

function toHostedAttempt(row: {
  id: string;
  link_reference: string;
  state: string;
  processor_reference: string | null;
  redirect_url: string | null;
  hosted_until: Date | null;
}): HostedAttempt | undefined {
  if (row.hosted_until === null) return undefined;
  return {
    checkoutReference: row.id,
    linkReference: row.link_reference,
    state: row.state,
    processorReference: row.processor_reference,
    redirectUrl: row.redirect_url,
    hostedUntil: new Date(row.hosted_until),
  };
}

/** A hosted attempt by its checkoutReference (of this link, when one is named); undefined for a form payment. */
export async function findHostedAttempt(
  db: Database,
  linkReference: string | undefined,
  checkoutReference: string,
): Promise<HostedAttempt | undefined> {
  let query = db.selectFrom("submissions").select(hostedAttemptColumns).where("id", "=", checkoutReference);
  if (linkReference !== undefined) query = query.where("link_reference", "=", linkReference);
  const row = await query.executeTakeFirst();
  return row ? toHostedAttempt(row) : undefined;
}

/**
 * Hosted attempts still pending that were started more than `olderThanSeconds` ago: their outcome
 * is late, so the processor is asked (oldest first, one sweep's worth).
 */
export async function findLateHostedAttempts(db: Database, olderThanSeconds: number): Promise<HostedAttempt[]> {
  const rows = await db
    .selectFrom("submissions")
    .select(hostedAttemptColumns)
    .where("state", "=", "pending")
    .where("hosted_until", "is not", null)
    .where("created_at", "<", sql<Date>`now() - (${olderThanSeconds} * interval '1 second')`)
    .orderBy("created_at")
    .limit(SWEEP_LIMIT)
    .execute();
  return rows.flatMap((row) => toHostedAttempt(row) ?? []);
}
