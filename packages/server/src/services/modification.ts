// What refunds and reversals (and, later, captures) share: the payment they modify and
// the "Received" receipt the caller gets before the final result arrives as a Refund webhook.
import { findPayment, type PaymentRecord } from "../db/payments-repository.ts";
import { AppError } from "../domain/errors.ts";
import { checkRefundable } from "../domain/payments/rules.ts";
import type { ServiceDeps } from "./deps.ts";

export interface ModificationReceipt {
  /** The modification's own reference. */
  payfacReference: string;
  originalPayfacReference: string;
  status: "Received";
  /** pending (the processor's answer is not in yet), succeeded or failed: for the portal's pages. */
  state: string;
  amount: number;
}

export function receipt(modification: {
  payfacReference: string;
  originalPayfacReference: string;
  state: string;
  amount: number;
}): ModificationReceipt {
  return {
    payfacReference: modification.payfacReference,
    originalPayfacReference: modification.originalPayfacReference,
    status: "Received",
    state: modification.state,
    amount: modification.amount,
  };
}

/** The merchant's payment with this reference (404 2014 if there is none), if it can be refunded (409 3003 otherwise). */
export async function refundablePayment(deps: ServiceDeps, merchantId: string, payfacReference: string): Promise<PaymentRecord> {
  const payment = payfacReference.length <= 64 ? await findPayment(deps.db, merchantId, payfacReference) : undefined;
  if (!payment) throw new AppError("NotFound", `No payment with payfacReference ${JSON.stringify(payfacReference)} was found.`);
  checkRefundable(payment);
  return payment;
}
