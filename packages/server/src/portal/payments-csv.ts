// The payments CSV an accountant imports (docs/portal.md#payments): one row per payment (link sales
// and saved-card charges), RFC 4180 quoting, amounts with a dot and the currency's decimals, times
// in UTC. The file is written as it is read: a batch of payments at a time, each batch a statement
// of its own, so an export of a year holds neither the whole file in memory nor a transaction open
// while a slow download drains.
import { Readable } from "node:stream";
import type { Database } from "../db/connect.ts";
import { type PaymentFilter, type PaymentRow, type PaymentsCursor, paymentsAfter } from "../db/payments-read-repository.ts";
import { refundedAmounts } from "../db/refunds-repository.ts";
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

/** Payments read per statement while the CSV is written. */
export const CSV_BATCH = 500;

/**
 * The CSV as a stream: the header line, then the payments newest first, a batch at a time. The
 * first batch is read before the stream is handed back, so a database that cannot answer gets the
 * portal's error page instead of a file cut short; a failure in a later batch ends the download
 * unfinished, which the browser reports as failed.
 */
export async function paymentsCsv(
  db: Database,
  merchantId: string,
  filter: PaymentFilter,
  batchSize: number = CSV_BATCH,
): Promise<Readable> {
  const readBatch = async (after: PaymentsCursor | undefined) => {
    const { payments, next } = await paymentsAfter(db, merchantId, filter, after, batchSize);
    const refunded = await refundedAmounts(
      db,
      payments.flatMap((p) => (p.payfacReference ? [p.payfacReference] : [])),
    );
    const text = payments.map((payment) => `${csvRow(payment, refunded.get(payment.payfacReference ?? "") ?? 0)}\r\n`).join("");
    return { text, next };
  };
  const first = await readBatch(undefined);
  async function* pieces(): AsyncGenerator<string> {
    yield `${CSV_HEADER.join(",")}\r\n${first.text}`;
    for (let after = first.next; after; ) {
      const batch = await readBatch(after);
      yield batch.text;
      after = batch.next;
    }
  }
  return Readable.from(pieces());
}
