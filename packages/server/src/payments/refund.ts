// Refund a payment, in part or in full (docs/api.md#refund). The amount is reserved first — one
// conditional UPDATE, so refunds that race never pass the payment — then the processor is asked.
// The answer is always "Received": the result (or, if the processor's answer is lost, the
// reconciler's result) arrives as a Refund webhook and shows on the payment's read.
import type { KeyedEffect } from "../db/idempotency-repository.ts";
import { findPayment, type PaymentRecord } from "../db/payments-repository.ts";
import { reserveRefund } from "../db/refunds-repository.ts";
import { AppError } from "../domain/errors.ts";
import { checkMerchantReference, checkRefundAmount, type RefundReason, refundTooHigh } from "../domain/payments/rules.ts";
import { newUpperAlnum } from "../ids.ts";
import type { AfterSaleDeps } from "./after-sale-deps.ts";
import { settleRefund } from "./settle-refund.ts";

export interface RefundInput {
  payfacReference: string;
  amount: number;
  currency: string;
  reference?: string | null;
  refundReason?: RefundReason | null;
}

export interface ModificationReceipt {
  /** The refund's own reference. */
  payfacReference: string;
  originalPayfacReference: string;
  status: "Received";
  /** pending (the processor's answer is not in yet), succeeded or failed: for the portal's pages. */
  state: string;
  amount: number;
}

/** `keyed`: the Idempotency-Key's answer, stored with the reservation (the refund's effect). */
export async function refundPayment(
  deps: AfterSaleDeps,
  merchantId: string,
  input: RefundInput,
  keyed?: KeyedEffect<ModificationReceipt>,
): Promise<ModificationReceipt> {
  const payment = await authorisedPayment(deps, merchantId, input.payfacReference);
  const amount = checkRefundAmount(input.amount, input.currency, payment);
  const merchantReference = input.reference == null ? null : checkMerchantReference("reference", input.reference);
  const reservation = await reserveRefund(
    deps.db,
    payment,
    { payfacReference: newUpperAlnum(16), kind: "refund", amount, merchantReference, refundReason: input.refundReason ?? null },
    keyed && ((trx, refund) => keyed.answered(trx, receipt(refund))),
  );
  if (reservation.kind === "too-high") throw refundTooHigh(payment, amount, reservation.left, reservation.pending);
  const refund = await settleRefund(deps, payment, reservation.refund);
  return receipt(refund);
}

export function receipt(refund: {
  payfacReference: string;
  originalPayfacReference: string;
  state: string;
  amount: number;
}): ModificationReceipt {
  return {
    payfacReference: refund.payfacReference,
    originalPayfacReference: refund.originalPayfacReference,
    status: "Received",
    state: refund.state,
    amount: refund.amount,
  };
}

/** The merchant's authorised payment with this reference: 404 2014 if there is none, 409 3003 if it cannot be refunded. */
export async function authorisedPayment(deps: AfterSaleDeps, merchantId: string, payfacReference: string): Promise<PaymentRecord> {
  const payment = payfacReference.length <= 64 ? await findPayment(deps.db, merchantId, payfacReference) : undefined;
  if (!payment) throw new AppError("NotFound", `No payment with payfacReference ${JSON.stringify(payfacReference)} was found.`);
  if (payment.state !== "approved") {
    throw new AppError("StateConflict", `Payment ${payfacReference} was not authorised; only an authorised payment can be refunded.`);
  }
  if (payment.amount <= 0) {
    throw new AppError("StateConflict", `Payment ${payfacReference} saved a card and charged nothing; there is nothing to refund.`);
  }
  return payment;
}
