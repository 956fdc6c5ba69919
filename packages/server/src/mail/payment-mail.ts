// The mail a recorded checkout payment causes: the shopper's receipt, when an e-mail is known (the
// session's shopperContact, or the form's EmailAddress field), in the checkout's language; and the
// merchant's "you got paid" for the users who opted in, in each user's language (the database
// picks the rendering per user). Rendered here, before the statement that writes the result, so
// the locked part of the write only inserts.
import type { CheckoutLink } from "../db/checkout-repository.ts";
import type { SavedCard } from "../db/saved-cards-repository.ts";
import type { SubmissionRecord } from "../db/submissions-repository.ts";
import type { TokenPaymentRecord } from "../db/token-payments-repository.ts";
import type { RecordedResult } from "../domain/payments/payment-outcome.ts";
import { shopperEmailOf } from "../domain/payments/shopper-email.ts";
import { isLang, type Lang } from "../web/i18n.ts";
import type { MailMessage } from "./message.ts";
import { NO_PAYMENT_MAIL, type PaymentMail } from "./outbox.ts";
import { paidMail } from "./templates/paid.tsx";
import { receiptMail } from "./templates/receipt.tsx";

export function paymentMail(
  link: CheckoutLink,
  submission: SubmissionRecord,
  recorded: RecordedResult,
  where: { language: Lang; publicBaseUrl: string | null },
): PaymentMail {
  // A card saved without a charge is no payment: no receipt, no "you got paid".
  if (recorded !== "approved" || link.terms.type === "TokenizeByLink") return NO_PAYMENT_MAIL;
  const orderReference = link.session ? link.session.orderReference : link.reference;
  const shopperEmail = shopperEmailOf(submission.answers, link.session?.shopperContact ?? null);
  const card = { cardBrand: submission.cardBrand, cardLast4: submission.cardLast4 };
  const messages: MailMessage[] = [];
  if (shopperEmail) {
    const receipt = receiptMail(where.language, {
      merchantName: link.merchantName,
      items: link.terms.items,
      amount: submission.amount,
      currency: submission.currency,
      ...card,
      checkoutReference: submission.checkoutReference,
      orderReference,
      payfacReference: submission.payfacReference,
      authCode: submission.authCode,
      paidAt: submission.completedAt ?? submission.createdAt,
      authorisedOnly: submission.manualCapture,
    });
    messages.push({
      ...receipt,
      recipient: shopperEmail,
      language: where.language,
      kind: "receipt",
      merchantId: link.merchantId,
      checkoutReference: submission.checkoutReference,
    });
  }
  const paid = (language: Lang) =>
    paidMail(language, {
      amount: submission.amount,
      currency: submission.currency,
      ...card,
      orderReference,
      checkoutReference: submission.checkoutReference,
      shopperEmail,
      portalUrl: where.publicBaseUrl && `${where.publicBaseUrl}/portal/payments/${encodeURIComponent(submission.checkoutReference)}`,
    });
  // Rendering costs CPU on every payment: only when someone will read it.
  if (!link.paymentNotices) return { messages, perUser: null };
  return {
    messages,
    perUser: { kind: "paid", byLanguage: { is: paid("is"), en: paid("en") }, checkoutReference: submission.checkoutReference },
  };
}

/**
 * The shopper's receipt for an approved charge of a saved card, when the payment that saved it
 * knew their e-mail; in that payment's language. Null when there is no one to send it to.
 */
export function tokenChargeReceipt(card: SavedCard, payment: TokenPaymentRecord, authCode: string | null): MailMessage | null {
  if (payment.state !== "approved" || !card.shopperEmail) return null;
  const language: Lang = isLang(card.culture) ? card.culture : "is";
  const receipt = receiptMail(language, {
    merchantName: card.merchantName,
    items: [],
    amount: payment.amount,
    currency: payment.currency,
    cardBrand: payment.cardBrand ?? card.cardBrand,
    cardLast4: payment.cardLast4 ?? card.cardLast4,
    checkoutReference: payment.checkoutReference,
    orderReference: payment.merchantReference,
    payfacReference: payment.payfacReference,
    authCode,
    paidAt: payment.createdAt,
    // A saved card's charge is captured at once: there is no manual capture on this path.
    authorisedOnly: false,
  });
  return {
    ...receipt,
    recipient: card.shopperEmail,
    language,
    kind: "receipt",
    merchantId: payment.merchantId,
    checkoutReference: payment.checkoutReference,
  };
}
