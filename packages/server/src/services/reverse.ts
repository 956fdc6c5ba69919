// Reverse a payment (docs/api.md#reverse): cancel it, or refund whatever of it is not yet
// refunded (a half-refunded payment gets its other half back). Reserved like a refund, and its
// result arrives as a Refund webhook too, as the live gateway's plugins expect. On a manual-capture
// authorisation it refunds the captured part and releases the rest, still one Refund webhook
// (docs/api.md#capture-and-adjust).
import type { KeyedEffect } from "../db/idempotency-repository.ts";
import { reserveRefund } from "../db/refunds-repository.ts";
import type { Actor } from "../domain/audit/actor.ts";
import { reversalScope } from "../domain/payments/capture.ts";
import { checkMerchantReference, nothingToReverse } from "../domain/payments/rules.ts";
import { newUpperAlnum } from "../ids.ts";
import { recordAudit } from "./audit.ts";
import type { AfterSaleServiceDeps } from "./deps.ts";
import { type ModificationReceipt, receipt, refundablePayment } from "./modification.ts";
import { askProcessorToModify } from "./settle-modification.ts";

export interface ReverseInput {
  payfacReference: string;
  reference?: string | null;
}

/** `keyed`: the Idempotency-Key's answer, stored with the reservation (the reversal's effect). */
export async function reversePayment(
  deps: AfterSaleServiceDeps,
  merchantId: string,
  actor: Actor,
  input: ReverseInput,
  keyed?: KeyedEffect<ModificationReceipt>,
): Promise<ModificationReceipt> {
  const payment = await refundablePayment(deps, merchantId, input.payfacReference);
  const merchantReference = input.reference == null ? null : checkMerchantReference("reference", input.reference);
  const reservation = await reserveRefund(
    deps.db,
    payment,
    { payfacReference: newUpperAlnum(16), kind: "reversal", amount: "rest", merchantReference, refundReason: null },
    // The request is recorded with its reservation; its outcome is the reversal's state on the payment.
    async (trx, refund) => {
      await recordAudit(trx, {
        merchantId,
        actor,
        action: "payment.reverse",
        object: { type: "payment", id: payment.payfacReference },
        details: { reversal: refund.payfacReference, amount: refund.amount, currency: refund.currency },
      });
      await keyed?.answered(trx, receipt(refund));
    },
    (balance) => reversalScope(balance, deps.now()),
  );
  if (reservation.kind === "too-high") throw nothingToReverse(payment, reservation.pending);
  return receipt(await askProcessorToModify(deps, payment, reservation.refund));
}
