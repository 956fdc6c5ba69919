// Refund a payment, in part or in full (docs/api.md#refund). The amount is reserved first — one
// conditional UPDATE, so refunds that race never pass the payment — then the processor is asked.
// The answer is always "Received": the result (or, if the processor's answer is lost, the
// reconciler's result) arrives as a Refund webhook and shows on the payment's read.
//
//   refundablePayment ─► rules ─► reserveRefund ─► askProcessorToModify ─► settleModification (+ outbox)
import type { KeyedEffect } from "../db/idempotency-repository.ts";
import { reserveRefund } from "../db/refunds-repository.ts";
import type { Actor } from "../domain/audit/actor.ts";
import { refundableTotal } from "../domain/payments/capture.ts";
import { checkMerchantReference, checkRefundAmount, type RefundReason, refundTooHigh } from "../domain/payments/rules.ts";
import { newUpperAlnum } from "../ids.ts";
import { recordAudit } from "./audit.ts";
import type { AfterSaleServiceDeps } from "./deps.ts";
import { type ModificationReceipt, receipt, refundablePayment } from "./modification.ts";
import { askProcessorToModify } from "./settle-modification.ts";

export interface RefundInput {
  payfacReference: string;
  amount: number;
  currency: string;
  reference?: string | null;
  refundReason?: RefundReason | null;
}

/** `keyed`: the Idempotency-Key's answer, stored with the reservation (the refund's effect). */
export async function refundPayment(
  deps: AfterSaleServiceDeps,
  merchantId: string,
  actor: Actor,
  input: RefundInput,
  keyed?: KeyedEffect<ModificationReceipt>,
): Promise<ModificationReceipt> {
  const payment = await refundablePayment(deps, merchantId, input.payfacReference);
  const amount = checkRefundAmount(input.amount, input.currency, payment);
  const merchantReference = input.reference == null ? null : checkMerchantReference("reference", input.reference);
  const reservation = await reserveRefund(
    deps.db,
    payment,
    { payfacReference: newUpperAlnum(16), kind: "refund", amount, merchantReference, refundReason: input.refundReason ?? null },
    // The request is recorded with its reservation; its outcome is the refund's state on the payment.
    async (trx, refund) => {
      await recordAudit(trx, {
        merchantId,
        actor,
        action: "payment.refund",
        object: { type: "payment", id: payment.payfacReference },
        details: { refund: refund.payfacReference, amount: refund.amount, currency: refund.currency },
      });
      await keyed?.answered(trx, receipt(refund));
    },
    // A payment captured later: only its captured money can be refunded.
    (balance) => ({ total: refundableTotal(balance, deps.now()), release: false }),
  );
  if (reservation.kind === "too-high") throw refundTooHigh(payment, amount, reservation.left, reservation.pending);
  return receipt(await askProcessorToModify(deps, payment, reservation.refund));
}
