// The shopper's refund notice: sent where the payment's receipt went, in the receipt's language.
// A payment without a receipt (no e-mail was known) gets no notice either.

import type { Database } from "../db/connect.ts";
import { findReceiptRecipient } from "../db/mail-outbox-repository.ts";
import type { PaymentRecord } from "../db/payments-repository.ts";
import type { RefundRecord } from "../db/refunds-repository.ts";
import { isLang } from "../web/i18n.ts";
import type { MailMessage } from "./message.ts";
import { refundMail } from "./templates/refund.tsx";

/** Read and rendered before the refund's transaction; undefined when there is nobody to tell. */
export async function refundNotice(db: Database, payment: PaymentRecord, refund: RefundRecord): Promise<MailMessage | undefined> {
  const receipt = await findReceiptRecipient(db, payment.checkoutReference);
  if (!receipt || !isLang(receipt.language)) return undefined;
  const rendered = refundMail(receipt.language, {
    merchantName: receipt.merchantName,
    refunded: refund.amount,
    originalAmount: payment.amount,
    currency: refund.currency,
    cardBrand: payment.cardBrand,
    cardLast4: payment.cardLast4,
    checkoutReference: payment.checkoutReference,
    orderReference: payment.merchantReference,
    refundReference: refund.payfacReference,
  });
  return {
    ...rendered,
    recipient: receipt.recipient,
    language: receipt.language,
    kind: "refund",
    merchantId: payment.merchantId,
    checkoutReference: payment.checkoutReference,
  };
}
