// Domain values → the payment and modification JSON of the after-sale API. Nothing else builds them.
import type { PaymentRecord } from "../db/payments-repository.ts";
import type { RefundRecord } from "../db/refunds-repository.ts";
import type { TokenCharge } from "../services/charge-token.ts";
import type { ModificationReceipt } from "../services/modification.ts";

const RESULT_CODE: Record<string, "Authorised" | "Refused" | "Pending"> = {
  approved: "Authorised",
  declined: "Refused",
  pending: "Pending",
};
const REFUND_STATUS: Record<string, "Pending" | "Succeeded" | "Failed"> = { pending: "Pending", succeeded: "Succeeded", failed: "Failed" };

export function presentTokenCharge({ resultCode, payment, paymentMethod }: TokenCharge) {
  return {
    resultCode,
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

export function presentPayment(payment: PaymentRecord, refunds: RefundRecord[]) {
  const resultCode: "Authorised" | "Refused" | "Pending" | "Cancelled" = RESULT_CODE[payment.state] ?? "Cancelled";
  return {
    payfacReference: payment.payfacReference,
    checkoutReference: payment.checkoutReference,
    merchantReference: payment.merchantReference,
    paymentLinkReference: payment.paymentLinkReference,
    amount: payment.amount,
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
  };
}

/** The answer to a refund or a reversal (both "Received"; the result follows as a Refund webhook). */
export function presentModification({ payfacReference, originalPayfacReference, status }: ModificationReceipt) {
  return { payfacReference, originalPayfacReference, status };
}
