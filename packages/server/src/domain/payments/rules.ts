// The rules of saved-card charges, refunds and reversals (docs/api.md#saved-cards-and-refunds):
// amounts, currencies, references, and what a payment must be to be refunded. The request schema
// has already checked shapes and lengths; the services load the stored facts and ask these rules.
import { AppError } from "../errors.ts";
import { checkCurrency, describe } from "../links/terms.ts";
import { checkWholeKronur } from "../money/currencies.ts";
import { moneyText } from "../money/money-text.ts";

/** The refund reasons the live gateway's plugins send. */
export const REFUND_REASONS = ["OTHER", "RETURN", "DUPLICATE", "FRAUD", "CUSTOMER REQUEST"] as const;
export type RefundReason = (typeof REFUND_REASONS)[number];

/** A payment's amount and currency: > 0 (2002), ISK in whole krónur (2026), a known currency (2008). */
export function checkChargeAmount(amount: number, rawCurrency: string): { amount: number; currency: string } {
  const currency = checkCurrency(rawCurrency);
  if (amount <= 0) throw new AppError("MustBeGreater", `amount must be greater than 0, got ${amount}.`);
  checkWholeKronur(amount, currency);
  return { amount, currency };
}

/** A refund's amount: > 0 (2002), in the payment's own currency (2008), ISK in whole krónur (2026). */
export function checkRefundAmount(amount: number, rawCurrency: string, payment: { currency: string; payfacReference: string }): number {
  if (amount <= 0) throw new AppError("MustBeGreater", `amount must be greater than 0, got ${amount}.`);
  const currency = checkCurrency(rawCurrency);
  if (currency !== payment.currency) {
    throw new AppError(
      "UnsupportedValue",
      `currency ${describe(rawCurrency)} is not the currency of payment ${payment.payfacReference}, which is ${payment.currency}.`,
    );
  }
  checkWholeKronur(amount, currency);
  return amount;
}

/** Only an authorised payment that charged something can be refunded or reversed (409 3003). */
export function checkRefundable(payment: { payfacReference: string; state: string; amount: number }): void {
  if (payment.state !== "approved") {
    throw new AppError(
      "StateConflict",
      `Payment ${payment.payfacReference} was not authorised; only an authorised payment can be refunded.`,
    );
  }
  if (payment.amount <= 0) {
    throw new AppError("StateConflict", `Payment ${payment.payfacReference} saved a card and charged nothing; there is nothing to refund.`);
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/** The merchant's own reference of a payment or refund: printable text, 1–200 characters (2008, 000). */
export function checkMerchantReference(field: string, raw: string): string {
  if (raw.trim().length === 0) throw new AppError("RequiredFieldMissing", `${field} is empty; send your own reference for this payment.`);
  if (CONTROL_CHARACTER.test(raw))
    throw new AppError("UnsupportedValue", `${field} contains a control character; only printable text is allowed.`);
  return raw;
}

/**
 * What a refund of `requested` leaves when only `left` can still be refunded: the 2019 message, its
 * amounts written as the merchant reads them ("ISK 999,999", not the wire's 99999900).
 */
export function refundTooHigh(
  payment: { payfacReference: string; currency: string },
  requested: number,
  left: number,
  pending: number,
): AppError {
  const money = (amount: number) => moneyText(amount, payment.currency);
  const inFlight = pending > 0 ? ` (${money(pending)} more is held by refunds still being processed)` : "";
  return new AppError(
    "AmountTooHigh",
    `amount ${money(requested)} is more than what is left to refund of payment ${payment.payfacReference}: ${money(left)}${inFlight}.`,
  );
}

/** A reversal that finds nothing left to take (409 3003): all refunded, or the rest held by refunds in flight. */
export function nothingToReverse(payment: { payfacReference: string }, pending: number): AppError {
  return new AppError(
    "StateConflict",
    pending > 0
      ? `Payment ${payment.payfacReference} has nothing left to reverse: what is not refunded (${pending}) is held by refunds still being processed.`
      : `Payment ${payment.payfacReference} is already fully refunded; there is nothing left to reverse.`,
  );
}
