// Reverse a payment (docs/api.md#reverse): cancel it, or refund whatever of it is not yet
// refunded (a half-refunded payment gets its other half back). Reserved like a refund, and its
// result arrives as a Refund webhook too, as the live gateway's plugins expect.
import type { KeyedEffect } from "../db/idempotency-repository.ts";
import { reserveRefund } from "../db/refunds-repository.ts";
import { AppError } from "../domain/errors.ts";
import { checkMerchantReference } from "../domain/payments/rules.ts";
import { newUpperAlnum } from "../ids.ts";
import type { AfterSaleDeps } from "./after-sale-deps.ts";
import { authorisedPayment, type ModificationReceipt, receipt } from "./refund.ts";
import { settleRefund } from "./settle-refund.ts";

export interface ReverseInput {
  payfacReference: string;
  reference?: string | null;
}

/** `keyed`: the Idempotency-Key's answer, stored with the reservation (the reversal's effect). */
export async function reversePayment(
  deps: AfterSaleDeps,
  merchantId: string,
  input: ReverseInput,
  keyed?: KeyedEffect<ModificationReceipt>,
): Promise<ModificationReceipt> {
  const payment = await authorisedPayment(deps, merchantId, input.payfacReference);
  const merchantReference = input.reference == null ? null : checkMerchantReference("reference", input.reference);
  const reservation = await reserveRefund(
    deps.db,
    payment,
    { payfacReference: newUpperAlnum(16), kind: "reversal", amount: "rest", merchantReference, refundReason: null },
    keyed && ((trx, refund) => keyed.answered(trx, receipt(refund))),
  );
  if (reservation.kind === "too-high") {
    throw new AppError(
      "StateConflict",
      reservation.pending > 0
        ? `Payment ${payment.payfacReference} has nothing left to reverse: what is not refunded (${reservation.pending}) is held by refunds still being processed.`
        : `Payment ${payment.payfacReference} is already fully refunded; there is nothing left to reverse.`,
    );
  }
  const refund = await settleRefund(deps, payment, reservation.refund);
  return receipt(refund);
}
