// The payments CSV an accountant imports (docs/portal.md#payments): one row per payment (link sales
// and saved-card charges), RFC 4180 quoting, times in UTC. It opens as it should in a spreadsheet
// set to the portal's language: UTF-8 with a byte-order mark (without one, Excel reads "Jólamarkaður"
// as Latin-1), ";" between cells on an Icelandic page and "," on an English one, and amounts with the
// language's decimal mark and no grouping, beside the same amounts in the wire's minor units. The file is written as it is read: a batch of payments at a time, each batch a statement
// of its own, so an export of a year holds neither the whole file in memory nor a transaction open
// while a slow download drains.
import { Readable } from "node:stream";
import type { Database } from "../db/connect.ts";
import { type PaymentFilter, type PaymentRow, type PaymentsCursor, paymentsAfter } from "../db/payments-read-repository.ts";
import { refundDates, refundedAmounts } from "../db/refunds-repository.ts";
import { formatDisplayAmount } from "../domain/money/display-amount.ts";
import type { Lang } from "../web/i18n.ts";

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
  "amountMinorUnits",
  "refundedMinorUnits",
  "refundDates",
  "shopperEmail",
];

/** Excel takes a UTF-8 file for UTF-8 only when it starts with this mark. */
const BYTE_ORDER_MARK = "\uFEFF";

/** How a spreadsheet in the portal's language reads cells and numbers. */
export function csvFormat(lang: Lang): CsvFormat {
  return lang === "is" ? { separator: ";", decimalMark: "," } : { separator: ",", decimalMark: "." };
}

export interface CsvFormat {
  separator: ";" | ",";
  decimalMark: "," | ".";
}

/** The paymentType column: a sale through a payment link, or a charge of a saved card. */
const PAYMENT_TYPES = { link: "linkSale", token: "savedCard" } as const;

/**
 * A cell: quoted when it holds a separator, quote or line break; a text starting with = + - @ (which
 * a spreadsheet would run as a formula) gets a leading apostrophe.
 */
export function csvCell(value: string, separator: CsvFormat["separator"] = ","): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /["\r\n]/.test(safe) || safe.includes(separator) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** What the CSV shows of a payment's refunds: the confirmed amount and when each one completed. */
export interface CsvRefunds {
  amount: number;
  dates: Date[];
}

const NO_REFUNDS: CsvRefunds = { amount: 0, dates: [] };

export function csvRow(payment: PaymentRow, refunds: CsvRefunds = NO_REFUNDS, format: CsvFormat = csvFormat("en")): string {
  const refundedAmount = refunds.amount;
  const decimal = (amount: number) => formatDisplayAmount(amount, payment.currency).replace(".", format.decimalMark);
  return [
    payment.createdAt.toISOString(),
    payment.checkoutReference,
    payment.payfacReference ?? "",
    payment.linkReference ?? "",
    payment.linkDescription,
    decimal(payment.amount),
    payment.currency,
    payment.cardBrand ?? "",
    payment.cardLast4 ?? "",
    payment.state,
    decimal(refundedAmount),
    PAYMENT_TYPES[payment.source],
    payment.merchantReference ?? "",
    String(payment.amount),
    String(refundedAmount),
    // Times in UTC like the first column; a space between two refunds' times.
    refunds.dates.map((date) => date.toISOString()).join(" "),
    payment.shopperEmail ?? "",
  ]
    .map((cell) => csvCell(cell, format.separator))
    .join(format.separator);
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
  lang: Lang,
  batchSize: number = CSV_BATCH,
): Promise<Readable> {
  const format = csvFormat(lang);
  const readBatch = async (after: PaymentsCursor | undefined) => {
    const { payments, next } = await paymentsAfter(db, merchantId, filter, after, batchSize);
    const references = payments.flatMap((p) => (p.payfacReference ? [p.payfacReference] : []));
    const [refunded, dates] = await Promise.all([refundedAmounts(db, references), refundDates(db, references)]);
    const refundsOf = (reference: string | null): CsvRefunds =>
      reference === null ? NO_REFUNDS : { amount: refunded.get(reference) ?? 0, dates: dates.get(reference) ?? [] };
    const text = payments.map((payment) => `${csvRow(payment, refundsOf(payment.payfacReference), format)}\r\n`).join("");
    return { text, next };
  };
  const first = await readBatch(undefined);
  async function* pieces(): AsyncGenerator<string> {
    yield `${BYTE_ORDER_MARK}${CSV_HEADER.join(format.separator)}\r\n${first.text}`;
    for (let after = first.next; after; ) {
      const batch = await readBatch(after);
      yield batch.text;
      after = batch.next;
    }
  }
  return Readable.from(pieces());
}
