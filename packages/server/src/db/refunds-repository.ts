// Refunds and reversals. What may still be refunded is the database's to keep: a refund reserves
// its amount with one conditional UPDATE of the payment's refund_balances row (so refunds that race,
// on any number of instances, queue on that row and never pass the payment's amount; the table's
// CHECK backs this up), the processor is called outside any transaction, and the answer moves the
// amount from reserved to refunded (or releases it) in the transaction that writes the webhook.
import { type Kysely, type Selectable, sql, type Transaction } from "kysely";
import type { AuthorisationBalance } from "../domain/payments/capture.ts";
import { type BalancePayment, ensureBalance, readBalance } from "./captures-repository.ts";
import type { Database } from "./connect.ts";
import type { DB, RefundsTable } from "./schema.ts";

/** The request itself asks the processor first; the reconciler only takes a refund after this. */
const FIRST_RETRY_SECONDS = 120;
const SWEEP_LIMIT = 100;

export interface RefundRecord {
  payfacReference: string;
  originalPayfacReference: string;
  merchantId: string;
  kind: "refund" | "reversal";
  amount: number;
  currency: string;
  merchantReference: string | null;
  refundReason: string | null;
  /** pending (reserved, no final answer yet), succeeded, failed (refused by the processor). */
  state: string;
  failureReason: string | null;
  createdAt: Date;
}

export function toRefund(row: Selectable<RefundsTable>): RefundRecord {
  return {
    payfacReference: row.payfac_reference,
    originalPayfacReference: row.original_payfac_reference,
    merchantId: row.merchant_id,
    kind: row.kind === "reversal" ? "reversal" : "refund",
    amount: Number(row.amount),
    currency: row.currency,
    merchantReference: row.merchant_reference,
    refundReason: row.refund_reason,
    state: row.state,
    failureReason: row.failure_reason,
    createdAt: row.created_at,
  };
}

/** The payment a refund is made of (its balance row is made with the first refund if it has none). */
export type RefundablePayment = BalancePayment;

export interface NewRefund {
  payfacReference: string;
  kind: "refund" | "reversal";
  /** A refund's amount, or "rest": whatever is neither refunded nor reserved (a reversal). */
  amount: number | "rest";
  merchantReference: string | null;
  refundReason: string | null;
}

export type RefundReservation =
  | { kind: "reserved"; refund: RefundRecord }
  /** Nothing reserved: `left` can still be refunded, `pending` is held by refunds in flight. */
  | { kind: "too-high"; left: number; pending: number };

/**
 * What refunds of a payment captured later may give back in all, read under its balance's lock, and
 * whether this reversal releases the uncaptured rest (the rules of docs/api.md#capture-and-adjust;
 * they may refuse by throwing).
 */
export type RefundScope = (balance: AuthorisationBalance) => { total: number; release: boolean };

/**
 * Reserves the refund's amount and records it pending, in one short transaction; nothing is
 * recorded when it does not fit. `alsoInTransaction` (the request's Idempotency-Key answer) commits
 * with the reservation or not at all. `scope` is asked for a payment captured later only.
 */
export async function reserveRefund(
  db: Database,
  payment: RefundablePayment,
  refund: NewRefund,
  alsoInTransaction?: (trx: Transaction<DB>, refund: RefundRecord) => Promise<void>,
  scope?: RefundScope,
): Promise<RefundReservation> {
  return db.transaction().execute(async (trx): Promise<RefundReservation> => {
    // The first refund of a payment creates its balance; a racing one waits for that insert and skips.
    await ensureBalance(trx, payment);
    // A payment captured later: only what is captured may come back, read under the row's lock.
    let total: number | null = null;
    let release = false;
    if (payment.capture && scope) {
      const balance = await readBalance(trx, payment.payfacReference, true);
      if (balance) ({ total, release } = scope(balance));
    }
    // A reversal takes whatever is left, read under the row's lock so that no refund slips in between.
    let wanted = refund.amount;
    if (wanted === "rest") {
      const balance = await trx
        .selectFrom("refund_balances")
        .select(["amount", "refunded_amount", "reserved_amount"])
        .where("payfac_reference", "=", payment.payfacReference)
        .forUpdate()
        .executeTakeFirstOrThrow();
      wanted = (total ?? Number(balance.amount)) - Number(balance.refunded_amount) - Number(balance.reserved_amount);
    }
    const reserved =
      wanted > 0
        ? await sql<{ amount: number }>`
            UPDATE refund_balances SET reserved_amount = reserved_amount + ${wanted},
              released_at = ${release ? sql`coalesce(released_at, now())` : sql`released_at`}
            WHERE payfac_reference = ${payment.payfacReference} AND merchant_id = ${payment.merchantId}
              AND refunded_amount + reserved_amount + ${wanted} <= ${total === null ? sql`amount` : sql`LEAST(amount, ${total})`}
            RETURNING ${wanted}::bigint AS amount`.execute(trx)
        : { rows: [] };
    const amount = Number(reserved.rows[0]?.amount ?? 0);
    if (amount <= 0) {
      const balance = await trx
        .selectFrom("refund_balances")
        .select(["amount", "refunded_amount", "reserved_amount"])
        .where("payfac_reference", "=", payment.payfacReference)
        .executeTakeFirstOrThrow();
      const pending = Number(balance.reserved_amount);
      const limit = Math.min(total ?? Number(balance.amount), Number(balance.amount));
      return { kind: "too-high", left: Math.max(0, limit - Number(balance.refunded_amount) - pending), pending };
    }
    const row = await trx
      .insertInto("refunds")
      .values({
        payfac_reference: refund.payfacReference,
        original_payfac_reference: payment.payfacReference,
        merchant_id: payment.merchantId,
        kind: refund.kind,
        amount,
        currency: payment.currency,
        merchant_reference: refund.merchantReference,
        refund_reason: refund.refundReason,
        failure_reason: null,
        next_attempt_at: sql<Date>`now() + (${FIRST_RETRY_SECONDS} * interval '1 second')`,
        completed_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await alsoInTransaction?.(trx, toRefund(row));
    return { kind: "reserved", refund: toRefund(row) };
  });
}

export type RefundOutcome = { kind: "succeeded" } | { kind: "failed"; reason: string };

/**
 * Writes the processor's final answer: the reserved amount becomes refunded (or is released), and
 * `alsoInTransaction` writes the Refund webhook rows, all in one transaction. Undefined when the
 * refund was already finished (by a racing request or the reconciler): nothing is written twice.
 */
export async function recordRefund(
  db: Database,
  refundPayfacReference: string,
  outcome: RefundOutcome,
  alsoInTransaction: (trx: Transaction<DB>, refund: RefundRecord) => Promise<void>,
): Promise<RefundRecord | undefined> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable("refunds")
      .set({
        state: outcome.kind,
        failure_reason: outcome.kind === "failed" ? outcome.reason : null,
        completed_at: new Date(),
      })
      .where("payfac_reference", "=", refundPayfacReference)
      .where("state", "=", "pending")
      .returningAll()
      .executeTakeFirst();
    if (!row) return undefined;
    const refunded = outcome.kind === "succeeded" ? row.amount : 0;
    await sql`
      UPDATE refund_balances
      SET reserved_amount = reserved_amount - ${row.amount}, refunded_amount = refunded_amount + ${refunded},
        -- A reversal the processor refused released nothing.
        released_at = ${outcome.kind === "failed" && row.kind === "reversal" ? null : sql`released_at`}
      WHERE payfac_reference = ${row.original_payfac_reference}`.execute(trx);
    const refund = toRefund(row);
    await alsoInTransaction(trx, refund);
    return refund;
  });
}

/**
 * Takes up to SWEEP_LIMIT pending refunds that are due, and pushes their next attempt back (longer
 * each time, at most an hour), so that no other instance asks the processor about them meanwhile.
 */
export async function claimDueRefunds(db: Database): Promise<RefundRecord[]> {
  const result = await sql<Selectable<RefundsTable>>`
    UPDATE refunds SET attempt_count = attempt_count + 1,
      next_attempt_at = now() + (LEAST(3600, 60 * power(2, LEAST(attempt_count, 6))) * interval '1 second')
    WHERE payfac_reference IN (
      SELECT payfac_reference FROM refunds WHERE state = 'pending' AND processor_reference IS NULL AND next_attempt_at <= now()
      ORDER BY next_attempt_at LIMIT ${SWEEP_LIMIT} FOR UPDATE SKIP LOCKED)
    RETURNING *`.execute(db);
  return result.rows.map(toRefund);
}

/** A payment's refunds and reversals, oldest first. */
export async function refundsOf(db: Kysely<DB>, merchantId: string, originalPayfacReference: string): Promise<RefundRecord[]> {
  const rows = await db
    .selectFrom("refunds")
    .selectAll()
    .where("original_payfac_reference", "=", originalPayfacReference)
    .where("merchant_id", "=", merchantId)
    .orderBy("created_at")
    .orderBy("payfac_reference")
    .execute();
  return rows.map(toRefund);
}

/** What is refunded of each of these payments (absent: nothing). */
export async function refundedAmounts(db: Kysely<DB>, payfacReferences: string[]): Promise<Map<string, number>> {
  if (payfacReferences.length === 0) return new Map();
  const rows = await db
    .selectFrom("refund_balances")
    .select(["payfac_reference", "refunded_amount"])
    .where("payfac_reference", "in", payfacReferences)
    .execute();
  return new Map(rows.map((row) => [row.payfac_reference, Number(row.refunded_amount)]));
}

/** When each payment's confirmed refunds completed, oldest first, by the payment's payfacReference. */
export async function refundDates(db: Kysely<DB>, payfacReferences: string[]): Promise<Map<string, Date[]>> {
  const dates = new Map<string, Date[]>();
  if (payfacReferences.length === 0) return dates;
  const rows = await db
    .selectFrom("refunds")
    .select(["original_payfac_reference", "completed_at"])
    .where("original_payfac_reference", "in", payfacReferences)
    .where("state", "=", "succeeded")
    .orderBy("completed_at")
    .execute();
  for (const row of rows) {
    if (row.completed_at === null) continue;
    const list = dates.get(row.original_payfac_reference) ?? [];
    list.push(new Date(row.completed_at));
    dates.set(row.original_payfac_reference, list);
  }
  return dates;
}
