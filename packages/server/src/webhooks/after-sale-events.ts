// What the after-sale operations tell the merchant's webhook endpoints (docs/webhooks.md): an
// Authorization for a charge of a saved card, a Refund for a refund or reversal, a TokenDisabled, a
// Capture or an Adjustment of a manual-capture authorisation.
// Pure; the services write them to the outbox in the transaction that records the result.
import type { CaptureRecord } from "../db/captures-repository.ts";
import type { DisputeStep } from "../db/disputes-repository.ts";
import type { PaymentRecord } from "../db/payments-repository.ts";
import type { RefundRecord } from "../db/refunds-repository.ts";
import type { SavedCard } from "../db/saved-cards-repository.ts";
import type { TokenPaymentRecord } from "../db/token-payments-repository.ts";
import type { AuthorizeResult } from "../payments/processor.ts";
import type { PaymentEvent } from "./payment-events.ts";

function additionalData(eventType: string, fields: Record<string, string | null | undefined>): Record<string, string> {
  const data: Record<string, string> = { eventType };
  for (const [key, value] of Object.entries(fields)) if (value !== null && value !== undefined && value !== "") data[key] = value;
  return data;
}

/** The Authorization of a token payment: merchantReference is the payment's own `reference`. */
export function tokenPaymentEvent(payment: TokenPaymentRecord, result: AuthorizeResult): PaymentEvent {
  return {
    eventType: "Authorization",
    message: {
      checkoutReference: payment.checkoutReference,
      payfacReference: result.payfacReference,
      merchantReference: payment.merchantReference,
      amount: String(payment.amount),
      currency: payment.currency,
      reason: result.approved ? `${result.authCode}:${payment.cardLast4 ?? ""}:${payment.cardExpiry ?? ""}` : result.reason,
      success: String(result.approved),
      additionalData: additionalData("Authorization", {
        cardNumber: payment.cardMasked,
        cardSummary: payment.cardLast4,
        cardUsage: result.cardUsage,
        cardExpiryDate: payment.cardExpiry,
        paymentMethod: result.paymentMethod,
        threeDAuthenticated: String(result.threeDAuthenticated),
        authCode: result.approved ? result.authCode : null,
      }),
    },
  };
}

/**
 * The Refund of a refund or reversal, about the original payment (its checkoutReference and
 * merchantReference); payfacReference is the refund's own, reason empty on success.
 */
export function refundEvent(payment: PaymentRecord, refund: RefundRecord): PaymentEvent {
  const success = refund.state === "succeeded";
  return {
    eventType: "Refund",
    message: {
      checkoutReference: payment.checkoutReference,
      payfacReference: refund.payfacReference,
      merchantReference: payment.merchantReference,
      amount: String(refund.amount),
      currency: refund.currency,
      reason: success ? "" : (refund.failureReason ?? "Refused"),
      success: String(success),
      additionalData: additionalData("Refund", {
        cardNumber: payment.cardMasked,
        cardSummary: payment.cardLast4,
        paymentMethod: payment.cardBrand,
        paymentLinkIdentifier: payment.paymentLinkReference,
        originalPayfacReference: refund.originalPayfacReference,
        modificationType: refund.kind === "reversal" ? "Reversal" : "Refund",
        refundReason: refund.refundReason,
        modificationReference: refund.merchantReference,
      }),
    },
  };
}

/**
 * The Capture of a capture (payfacReference the capture's own, amount what it took) or the
 * Adjustment of an adjustment (amount the new authorised total), about the original payment.
 */
export function captureEvent(payment: PaymentRecord, capture: CaptureRecord): PaymentEvent {
  const success = capture.state === "approved";
  const eventType = capture.kind === "adjustment" ? "Adjustment" : "Capture";
  return {
    eventType,
    message: {
      checkoutReference: payment.checkoutReference,
      payfacReference: capture.payfacReference,
      merchantReference: payment.merchantReference,
      amount: String(capture.amount),
      currency: capture.currency,
      reason: success ? "" : (capture.failureReason ?? "Refused"),
      success: String(success),
      additionalData: additionalData(eventType, {
        cardNumber: payment.cardMasked,
        cardSummary: payment.cardLast4,
        paymentMethod: payment.cardBrand,
        originalPayfacReference: capture.originalPayfacReference,
        modificationReference: capture.merchantReference,
      }),
    },
  };
}

/** The TokenDisabled of a saved card: about the submission that saved it, amount "0". */
export function tokenDisabledEvent(card: SavedCard): PaymentEvent {
  return {
    eventType: "TokenDisabled",
    message: {
      checkoutReference: card.checkoutReference,
      payfacReference: card.payfacReference ?? "",
      merchantReference: card.merchantReference,
      amount: "0",
      currency: card.currency,
      reason: "",
      success: "true",
      additionalData: additionalData("TokenDisabled", {
        cardNumber: card.cardMasked,
        cardSummary: card.cardLast4,
        cardExpiryDate: card.cardExpiry,
        paymentMethod: card.cardBrand,
        token: card.token,
        paymentLinkIdentifier: card.paymentLinkReference,
      }),
    },
  };
}

/**
 * The Dispute of a step in a chargeback or dispute, about the original payment: payfacReference the
 * dispute's own, amount what is disputed (the payment's when the processor did not say), success
 * "true" (the step is recorded), where it stands in additionalData.disputeStatus.
 */
export function disputeEvent(payment: PaymentRecord, step: DisputeStep): PaymentEvent {
  return {
    eventType: "Dispute",
    message: {
      checkoutReference: payment.checkoutReference,
      payfacReference: step.disputeReference,
      merchantReference: payment.merchantReference,
      amount: String(step.amount ?? payment.amount),
      currency: step.currency ?? payment.currency,
      reason: step.reason,
      success: "true",
      additionalData: additionalData("Dispute", {
        cardNumber: payment.cardMasked,
        cardSummary: payment.cardLast4,
        paymentMethod: payment.cardBrand,
        paymentLinkIdentifier: payment.paymentLinkReference,
        originalPayfacReference: payment.payfacReference,
        disputeStatus: step.status,
        processorEvent: step.processorEvent,
      }),
    },
  };
}
