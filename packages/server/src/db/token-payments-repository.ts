// Charges of saved cards: recorded pending before the processor is called, finished with the
// processor's answer (and the caller's webhook rows) in one transaction, only while still pending.
import { type Kysely, type Selectable, sql, type Transaction } from "kysely";
import type { Database } from "./connect.ts";
import { registerPayfacReference } from "./payfac-references-repository.ts";
import { type PaymentFacts, paymentFactsOf } from "./payment-facts.ts";
import type { DB, TokenPaymentsTable } from "./schema.ts";

/** Longer than any processor call may take: a charge pending longer lost its answer. */
export const TOKEN_PAYMENT_TTL_SECONDS = 5 * 60;
/** How long a charge waits for its shopper's 3-D Secure before the reconciler undoes it. */
export const SHOPPER_ACTION_TTL_SECONDS = 30 * 60;
const SWEEP_LIMIT = 100;

export interface TokenPaymentRecord extends PaymentFacts {
  checkoutReference: string;
  merchantId: string;
  terminalIdentifier: string;
  token: string;
  merchantReference: string;
  amount: number;
  currency: string;
  recurringProcessingModel: string | null;
  returnUrl: string | null;
  /** The processor's 3-D Secure page while the charge waits for the shopper; null otherwise. */
  shopperRedirectUrl: string | null;
  /** pending, approved, declined, failed (outcome unknown, reversed at the processor). */
  state: string;
  createdAt: Date;
}

export function toTokenPayment(row: Selectable<TokenPaymentsTable>): TokenPaymentRecord {
  return {
    checkoutReference: row.id,
    merchantId: row.merchant_id,
    terminalIdentifier: row.terminal_identifier,
    token: row.token,
    merchantReference: row.merchant_reference,
    amount: Number(row.amount),
    currency: row.currency,
    recurringProcessingModel: row.recurring_processing_model,
    returnUrl: row.return_url,
    shopperRedirectUrl: row.shopper_redirect_url,
    state: row.state,
    ...paymentFactsOf(row),
    createdAt: row.created_at,
  };
}

export interface NewTokenPayment {
  checkoutReference: string;
  merchantId: string;
  terminalIdentifier: string;
  token: string;
  merchantReference: string;
  amount: number;
  currency: string;
  recurringProcessingModel: string | null;
  shopperIp: string | null;
  origin: string | null;
  channel: string | null;
  returnUrl: string | null;
  card: { brand: string; masked: string; last4: string; expiry: string; usage: string | null };
}

/**
 * Records the charge as pending — unless the token was disabled meanwhile (false then): the
 * check and the insert are one statement, so a disable that committed first always wins.
 * `alsoInTransaction` (the Idempotency-Key waiting on this charge) commits with the insert.
 */
export async function insertPendingTokenPayment(
  db: Database,
  payment: NewTokenPayment,
  alsoInTransaction?: (trx: Transaction<DB>) => Promise<void>,
): Promise<boolean> {
  if (alsoInTransaction) {
    return db.transaction().execute(async (trx) => {
      const inserted = await insertPending(trx, payment);
      if (inserted) await alsoInTransaction(trx);
      return inserted;
    });
  }
  return insertPending(db, payment);
}

async function insertPending(db: Kysely<DB>, payment: NewTokenPayment): Promise<boolean> {
  const result = await sql`
    INSERT INTO token_payments (id, merchant_id, terminal_identifier, token, merchant_reference, amount, currency,
      recurring_processing_model, shopper_ip, origin, channel, return_url,
      card_brand, card_masked, card_last4, card_expiry, card_usage)
    SELECT ${payment.checkoutReference}, ${payment.merchantId}, ${payment.terminalIdentifier}, ${payment.token},
      ${payment.merchantReference}, ${payment.amount}, ${payment.currency}, ${payment.recurringProcessingModel},
      ${payment.shopperIp}, ${payment.origin}, ${payment.channel}, ${payment.returnUrl},
      ${payment.card.brand}, ${payment.card.masked}, ${payment.card.last4}, ${payment.card.expiry}, ${payment.card.usage}
    WHERE NOT EXISTS (SELECT 1 FROM disabled_tokens WHERE token = ${payment.token})`.execute(db);
  return Number(result.numAffectedRows ?? 0) > 0;
}

export type TokenChargeOutcome =
  | { kind: "approved"; payfacReference: string; authCode: string; cardBrand: string; cardUsage: string }
  | { kind: "declined"; payfacReference: string; reason: string; cardBrand: string; cardUsage: string }
  /** No answer, and the processor confirmed the attempt is reversed. */
  | { kind: "failed"; reason: string };

/**
 * Writes the processor's answer and whatever `alsoInTransaction` writes (the webhook outbox rows)
 * in one transaction. Undefined when the charge was no longer pending (nothing is written).
 */
export async function recordTokenPayment(
  db: Database,
  checkoutReference: string,
  outcome: TokenChargeOutcome,
  alsoInTransaction: (trx: Transaction<DB>, payment: TokenPaymentRecord) => Promise<void>,
): Promise<TokenPaymentRecord | undefined> {
  return db.transaction().execute(async (trx) => {
    const changes =
      outcome.kind === "approved"
        ? { state: "approved", payfac_reference: outcome.payfacReference, auth_code: outcome.authCode, card_brand: outcome.cardBrand }
        : outcome.kind === "declined"
          ? { state: "declined", payfac_reference: outcome.payfacReference, reason: outcome.reason, card_brand: outcome.cardBrand }
          : { state: "failed", reason: outcome.reason };
    const row = await trx
      .updateTable("token_payments")
      .set({ ...changes, ...("cardUsage" in outcome ? { card_usage: outcome.cardUsage } : {}), completed_at: new Date() })
      .where("id", "=", checkoutReference)
      .where("state", "=", "pending")
      .returningAll()
      .executeTakeFirst();
    if (!row) return undefined;
    if (row.payfac_reference !== null) await registerPayfacReference(trx, row.payfac_reference, "token", checkoutReference);
    const payment = toTokenPayment(row);
    await alsoInTransaction(trx, payment);
    return payment;
  });
}

/**
 * The processor wants the shopper first: the pending charge keeps the processor's page, and
 * `alsoInTransaction` (the Idempotency-Key's answer) commits with it. Undefined when the charge
 * was no longer pending.
 */
export async function awaitShopper(
  db: Database,
  checkoutReference: string,
  redirectUrl: string,
  alsoInTransaction: (trx: Transaction<DB>, payment: TokenPaymentRecord) => Promise<void>,
): Promise<TokenPaymentRecord | undefined> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable("token_payments")
      .set({ shopper_redirect_url: redirectUrl })
      .where("id", "=", checkoutReference)
      .where("state", "=", "pending")
      .returningAll()
      .executeTakeFirst();
    if (!row) return undefined;
    const payment = toTokenPayment(row);
    await alsoInTransaction(trx, payment);
    return payment;
  });
}

export async function findTokenPayment(db: Kysely<DB>, checkoutReference: string): Promise<TokenPaymentRecord | undefined> {
  const row = await db.selectFrom("token_payments").selectAll().where("id", "=", checkoutReference).executeTakeFirst();
  return row && toTokenPayment(row);
}

/**
 * Charges pending for longer than the TTL (the shopper's longer one for a charge waiting for 3-D
 * Secure), oldest first: their answer was lost, or the shopper never came; the reconciler reverses them.
 */
export async function findStaleTokenPayments(db: Database): Promise<string[]> {
  const rows = await db
    .selectFrom("token_payments")
    .select("id")
    .where("state", "=", "pending")
    .where(
      "created_at",
      "<",
      sql<Date>`now() - (CASE WHEN shopper_redirect_url IS NULL THEN ${TOKEN_PAYMENT_TTL_SECONDS}::integer ELSE ${SHOPPER_ACTION_TTL_SECONDS}::integer END * interval '1 second')`,
    )
    .orderBy("created_at")
    .limit(SWEEP_LIMIT)
    .execute();
  return rows.map((row) => row.id);
}
