// Captures and adjustments of manual-capture authorisations (docs/api.md#capture-and-adjust). Like
// refunds: a capture reserves its amount on the payment's balance row, under that row's lock (so
// captures that race, on any number of instances, never pass the authorised amount; the table's
// CHECK backs this up), the processor is called outside any transaction, and the answer moves the
// amount from reserved to captured (or releases it) in the transaction that writes the webhook.
import { type Kysely, type Selectable, sql, type Transaction } from "kysely";
import type { AuthorisationBalance, CaptureTerms } from "../domain/payments/capture.ts";
import type { Database } from "./connect.ts";
import type { CapturesTable, DB } from "./schema.ts";

/** The request itself asks the processor first; the reconciler only takes a capture after this. */
const FIRST_RETRY_SECONDS = 120;
const SWEEP_LIMIT = 100;

export interface CaptureRecord {
  payfacReference: string;
  originalPayfacReference: string;
  merchantId: string;
  kind: "capture" | "adjustment";
  /** A capture's amount; an adjustment's new authorised total. */
  amount: number;
  currency: string;
  merchantReference: string | null;
  /** reserved, approved, declined, unknown (asked, no answer: still reserved). */
  state: string;
  failureReason: string | null;
  createdAt: Date;
}

export function toCapture(row: Selectable<CapturesTable>): CaptureRecord {
  return {
    payfacReference: row.payfac_reference,
    originalPayfacReference: row.original_payfac_reference,
    merchantId: row.merchant_id,
    kind: row.kind === "adjustment" ? "adjustment" : "capture",
    amount: Number(row.amount),
    currency: row.currency,
    merchantReference: row.merchant_reference,
    state: row.state,
    failureReason: row.failure_reason,
    createdAt: new Date(row.created_at),
  };
}

/** The payment a balance row is made for. */
export interface BalancePayment {
  payfacReference: string;
  merchantId: string;
  amount: number;
  currency: string;
  capture: CaptureTerms | null;
}

/**
 * Creates the payment's balance row if it has none: the first capture, refund, reversal or
 * adjustment of a payment makes it, and one that races waits for that insert and skips.
 */
export async function ensureBalance(trx: Transaction<DB>, payment: BalancePayment): Promise<void> {
  const terms = payment.capture;
  await sql`
    INSERT INTO refund_balances (payfac_reference, merchant_id, amount, currency, captured_amount, authorised_at, auto_capture_at, pre_auth)
    VALUES (${payment.payfacReference}, ${payment.merchantId}, ${payment.amount}, ${payment.currency},
            ${terms ? 0 : null}, ${terms?.authorisedAt ?? null}, ${terms?.autoCaptureAt ?? null}, ${terms?.preAuth ?? false})
    ON CONFLICT (payfac_reference) DO NOTHING`.execute(trx);
}

interface BalanceRow {
  payfac_reference: string;
  currency: string;
  amount: number | string;
  captured_amount: number | string | null;
  capture_reserved_amount: number | string;
  refunded_amount: number | string;
  reserved_amount: number | string;
  authorised_at: Date | string | null;
  auto_capture_at: Date | string | null;
  released_at: Date | string | null;
  pre_auth: boolean;
  adjusting: boolean;
}

const date = (value: Date | string | null) => (value === null ? null : new Date(value));

function toBalance(row: BalanceRow): AuthorisationBalance {
  return {
    payfacReference: row.payfac_reference,
    currency: row.currency,
    amount: Number(row.amount),
    capturedAmount: row.captured_amount === null ? null : Number(row.captured_amount),
    captureReservedAmount: Number(row.capture_reserved_amount),
    refundedAmount: Number(row.refunded_amount),
    reservedAmount: Number(row.reserved_amount),
    authorisedAt: date(row.authorised_at),
    autoCaptureAt: date(row.auto_capture_at),
    releasedAt: date(row.released_at),
    preAuth: row.pre_auth,
    adjusting: row.adjusting,
  };
}

/** The payment's balance; `lock`: held FOR UPDATE until the transaction ends. Undefined when it has none yet. */
export async function readBalance(db: Kysely<DB>, payfacReference: string, lock = false): Promise<AuthorisationBalance | undefined> {
  const result = await sql<BalanceRow>`
    SELECT b.payfac_reference, b.currency, b.amount, b.captured_amount, b.capture_reserved_amount, b.refunded_amount,
           b.reserved_amount, b.authorised_at, b.auto_capture_at, b.released_at, b.pre_auth,
           EXISTS (SELECT 1 FROM captures c WHERE c.original_payfac_reference = b.payfac_reference
                   AND c.kind = 'adjustment' AND c.state IN ('reserved', 'unknown')) AS adjusting
    FROM refund_balances b WHERE b.payfac_reference = ${payfacReference}
    ${lock ? sql`FOR UPDATE OF b` : sql``}`.execute(db);
  const row = result.rows[0];
  return row && toBalance(row);
}

export interface NewCapture {
  payfacReference: string;
  kind: "capture" | "adjustment";
  amount: number;
  merchantReference: string | null;
}

/**
 * Reserves a capture (or records an adjustment) in one short transaction: the balance row is
 * locked, `check` (the rules) may refuse by throwing, and only then is the amount held and the
 * capture recorded. `alsoInTransaction` (the request's Idempotency-Key answer) commits with it.
 */
export async function reserveCapture(
  db: Database,
  payment: BalancePayment,
  capture: NewCapture,
  check: (balance: AuthorisationBalance) => void,
  alsoInTransaction?: (trx: Transaction<DB>, capture: CaptureRecord) => Promise<void>,
): Promise<CaptureRecord> {
  return db.transaction().execute(async (trx) => {
    await ensureBalance(trx, payment);
    const balance = await readBalance(trx, payment.payfacReference, true);
    if (!balance) throw new Error(`no balance for payment ${payment.payfacReference}`);
    check(balance);
    if (capture.kind === "capture") {
      await sql`
        UPDATE refund_balances SET capture_reserved_amount = capture_reserved_amount + ${capture.amount}
        WHERE payfac_reference = ${payment.payfacReference}`.execute(trx);
    }
    const row = await trx
      .insertInto("captures")
      .values({
        payfac_reference: capture.payfacReference,
        original_payfac_reference: payment.payfacReference,
        merchant_id: payment.merchantId,
        kind: capture.kind,
        amount: capture.amount,
        currency: payment.currency,
        merchant_reference: capture.merchantReference,
        failure_reason: null,
        next_attempt_at: sql<Date>`now() + (${FIRST_RETRY_SECONDS} * interval '1 second')`,
        decided_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const record = toCapture(row);
    await alsoInTransaction?.(trx, record);
    return record;
  });
}

export type CaptureOutcome = { kind: "approved" } | { kind: "declined"; reason: string };

/**
 * Writes the processor's final answer: a capture's reserved amount becomes captured (or is
 * released), an adjustment's total becomes the authorised amount, and `alsoInTransaction` writes
 * the webhook rows, all in one transaction. Undefined when it was already decided: nothing twice.
 */
export async function recordCapture(
  db: Database,
  capturePayfacReference: string,
  outcome: CaptureOutcome,
  alsoInTransaction: (trx: Transaction<DB>, capture: CaptureRecord) => Promise<void>,
): Promise<CaptureRecord | undefined> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable("captures")
      .set({
        state: outcome.kind,
        failure_reason: outcome.kind === "declined" ? outcome.reason : null,
        decided_at: new Date(),
      })
      .where("payfac_reference", "=", capturePayfacReference)
      .where("state", "in", ["reserved", "unknown"])
      .returningAll()
      .executeTakeFirst();
    if (!row) return undefined;
    const approved = outcome.kind === "approved";
    if (row.kind === "capture") {
      await sql`
        UPDATE refund_balances
        SET capture_reserved_amount = capture_reserved_amount - ${row.amount},
            captured_amount = captured_amount + ${approved ? row.amount : 0}
        WHERE payfac_reference = ${row.original_payfac_reference}`.execute(trx);
    } else if (approved) {
      await sql`UPDATE refund_balances SET amount = ${row.amount} WHERE payfac_reference = ${row.original_payfac_reference}`.execute(trx);
    }
    const capture = toCapture(row);
    await alsoInTransaction(trx, capture);
    return capture;
  });
}

/** The processor was asked and did not answer: the capture stays reserved, and says so. */
export async function markCaptureUnknown(db: Kysely<DB>, capturePayfacReference: string): Promise<void> {
  await db
    .updateTable("captures")
    .set({ state: "unknown" })
    .where("payfac_reference", "=", capturePayfacReference)
    .where("state", "=", "reserved")
    .execute();
}

/**
 * Takes up to SWEEP_LIMIT undecided captures that are due, and pushes their next attempt back
 * (longer each time, at most an hour), so that no other instance asks the processor meanwhile.
 */
export async function claimDueCaptures(db: Database): Promise<CaptureRecord[]> {
  const result = await sql<Selectable<CapturesTable>>`
    UPDATE captures SET attempt_count = attempt_count + 1,
      next_attempt_at = now() + (LEAST(3600, 60 * power(2, LEAST(attempt_count, 6))) * interval '1 second')
    WHERE payfac_reference IN (
      SELECT payfac_reference FROM captures WHERE state IN ('reserved', 'unknown') AND processor_reference IS NULL AND next_attempt_at <= now()
      ORDER BY next_attempt_at LIMIT ${SWEEP_LIMIT} FOR UPDATE SKIP LOCKED)
    RETURNING *`.execute(db);
  return result.rows.map(toCapture);
}

/** A payment's captures and adjustments, oldest first. */
export async function capturesOf(db: Kysely<DB>, merchantId: string, originalPayfacReference: string): Promise<CaptureRecord[]> {
  const rows = await db
    .selectFrom("captures")
    .selectAll()
    .where("original_payfac_reference", "=", originalPayfacReference)
    .where("merchant_id", "=", merchantId)
    .orderBy("created_at")
    .orderBy("payfac_reference")
    .execute();
  return rows.map(toCapture);
}
