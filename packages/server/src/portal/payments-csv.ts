// The payments CSV an accountant imports (docs/portal.md#payments): one row per payment (link sales
// and saved-card charges), RFC 4180 quoting, amounts with a dot and the currency's decimals, times
// in UTC. Pure: rows in, text out.
import type { PaymentRow } from "../db/payments-read-repository.ts";
import { formatDisplayAmount } from "../domain/money/display-amount.ts";

export const CSV_HEADER = [
  "date",
  "checkoutReference",
  "payfacReference",
  "paymentLinkReference",
  "description",
  "amount",
  "currency",
  "cardBrand",
  "cardLast4",
  "result",
  "refundedAmount",
  "paymentType",
  "merchantReference",
];

/** The paymentType column: a sale through a payment link, or a charge of a saved card. */
const PAYMENT_TYPES = { link: "linkSale", token: "savedCard" } as const;

/**
 * A cell: quoted when it holds a comma, quote or line break; a text starting with = + - @ (which a
 * spreadsheet would run as a formula) gets a leading apostrophe.
 */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function csvRow(payment: PaymentRow, refundedAmount: number): string {
  return [
    payment.createdAt.toISOString(),
    payment.checkoutReference,
    payment.payfacReference ?? "",
    payment.linkReference ?? "",
    payment.linkDescription,
    formatDisplayAmount(payment.amount, payment.currency),
    payment.currency,
    payment.cardBrand ?? "",
    payment.cardLast4 ?? "",
    payment.state,
    formatDisplayAmount(refundedAmount, payment.currency),
    PAYMENT_TYPES[payment.source],
    payment.merchantReference ?? "",
  ]
    .map(csvCell)
    .join(",");
}
