// Domain values → the payment and modification JSON of the after-sale API. Nothing else builds them.
import type { CaptureRecord } from "../db/captures-repository.ts";
import type { Dispute } from "../db/disputes-repository.ts";
import type { PaymentRecord } from "../db/payments-repository.ts";
import type { RefundRecord } from "../db/refunds-repository.ts";
import type { TokenCharge } from "../services/charge-token.ts";
import type { ModificationReceipt } from "../services/modification.ts";
import { shopperAuthenticationPath } from "../services/shopper-authentication.ts";

const RESULT_CODE: Record<string, "Authorised" | "Refused" | "Pending"> = {
  approved: "Authorised",
  declined: "Refused",
  pending: "Pending",
};
const REFUND_STATUS: Record<string, "Pending" | "Succeeded" | "Failed"> = { pending: "Pending", succeeded: "Succeeded", failed: "Failed" };

/** `publicBaseUrl`: a charge that waits for its shopper names Paylink's address that forwards them to the processor. */
export function presentTokenCharge({ resultCode, payment, paymentMethod }: TokenCharge, publicBaseUrl: string) {
  return {
    resultCode,
    ...(resultCode === "RedirectShopper"
      ? { redirect: { url: `${publicBaseUrl}${shopperAuthenticationPath(payment.checkoutReference)}`, method: "GET" as const } }
      : {}),
    payfacReference: payment.payfacReference ?? "",
    checkoutReference: payment.checkoutReference,
    merchantReference: payment.merchantReference,
    amount: payment.amount,
    currency: payment.currency,
    ...(resultCode === "Refused" ? { refusalReason: payment.reason ?? "Refused" } : {}),
    additionalData: {
      cardNumber: payment.cardMasked ?? "",
      cardSummary: payment.cardLast4 ?? "",
      paymentMethod,
      cardUsage: payment.cardUsage ?? "",
      ...(resultCode === "Authorised" && payment.authCode ? { authCode: payment.authCode } : {}),
    },
  };
}

const CAPTURE_STATUS: Record<string, "Reserved" | "Approved" | "Declined" | "Unknown"> = {
  reserved: "Reserved",
  approved: "Approved",
  declined: "Declined",
  unknown: "Unknown",
};

/** A payment captured later: its authorised amount now (after any adjustment), what is captured, its captures. */
export interface CaptureView {
  authorisedAmount: number;
  capturedAmount: number;
  captures: CaptureRecord[];
}

export function presentPayment(payment: PaymentRecord, refunds: RefundRecord[], disputes: Dispute[], capture?: CaptureView) {
  const resultCode: "Authorised" | "Refused" | "Pending" | "Cancelled" = RESULT_CODE[payment.state] ?? "Cancelled";
  const captured = resultCode === "Authorised" ? payment.amount : 0;
  return {
    payfacReference: payment.payfacReference,
    checkoutReference: payment.checkoutReference,
    merchantReference: payment.merchantReference,
    paymentLinkReference: payment.paymentLinkReference,
    amount: capture?.authorisedAmount ?? payment.amount,
    currency: payment.currency,
    resultCode,
    refusalReason: resultCode === "Authorised" ? null : payment.reason,
    cardNumber: payment.cardMasked,
    cardSummary: payment.cardLast4,
    paymentMethod: payment.cardBrand,
    createdAt: payment.createdAt.toISOString(),
    refundedAmount: refunds.filter((refund) => refund.state === "succeeded").reduce((sum, refund) => sum + refund.amount, 0),
    refunds: refunds.map((refund) => ({
      payfacReference: refund.payfacReference,
      type: refund.kind === "reversal" ? ("Reversal" as const) : ("Refund" as const),
      amount: refund.amount,
      reason: refund.state === "failed" ? refund.failureReason : refund.refundReason,
      reference: refund.merchantReference,
      status: REFUND_STATUS[refund.state] ?? "Pending",
      createdAt: refund.createdAt.toISOString(),
    })),
    isManualCapture: payment.capture?.manual ?? false,
    capturedAmount: capture?.capturedAmount ?? captured,
    captures: (capture?.captures ?? [])
      .filter((entry) => entry.kind === "capture")
      .map((entry) => ({
        payfacReference: entry.payfacReference,
        amount: entry.amount,
        status: CAPTURE_STATUS[entry.state] ?? "Reserved",
        created: entry.createdAt.toISOString(),
      })),
    disputes: disputes.map((dispute) => ({
      disputeReference: dispute.disputeReference,
      status: dispute.status,
      processorEvent: dispute.processorEvent,
      amount: dispute.amount,
      currency: dispute.currency,
      reason: dispute.reason,
      openedAt: dispute.openedAt.toISOString(),
      updatedAt: dispute.updatedAt.toISOString(),
    })),
  };
}

/** The answer to a refund, reversal, capture or adjustment ("Received"; the result follows as a webhook). */
export function presentModification({ payfacReference, originalPayfacReference, status }: ModificationReceipt) {
  return { payfacReference, originalPayfacReference, status };
}
