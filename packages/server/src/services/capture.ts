// Capture a manual-capture authorisation, in part or in full (docs/api.md#capture-and-adjust). The
// amount is reserved first on the payment's balance, under its lock, so captures that race never
// pass the authorised amount; then the processor is asked. The answer is always "Received": the
// result arrives as a Capture webhook and shows on the payment's read.
//
//   refundablePayment ─► rules ─► reserveCapture ─► askProcessorToCapture ─► settleCapture (+ outbox)
import { reserveCapture } from "../db/captures-repository.ts";
import type { KeyedEffect } from "../db/idempotency-repository.ts";
import type { Actor } from "../domain/audit/actor.ts";
import { AppError } from "../domain/errors.ts";
import { checkAdjust, checkCapture } from "../domain/payments/capture.ts";
import { checkMerchantReference, checkRefundAmount } from "../domain/payments/rules.ts";
import { wireAmount } from "../domain/sessions/create.ts";
import type { WireAmount } from "../domain/sessions/types.ts";
import { newUpperAlnum } from "../ids.ts";
import { recordAudit } from "./audit.ts";
import type { AfterSaleServiceDeps } from "./deps.ts";
import { type ModificationReceipt, receipt, refundablePayment } from "./modification.ts";
import { askProcessorToCapture } from "./settle-capture.ts";

export interface CaptureInput {
  payfacReference: string;
  /** Minor units: an integer or a string of digits, as on the session endpoints. */
  amount: WireAmount;
  currency: string;
  /** The merchant's reference (the plugins send the order id). */
  reference?: string | null;
}

/** `kind`: a capture takes `amount`; an adjustment makes `amount` the authorised total. */
export async function captureOrAdjust(
  deps: AfterSaleServiceDeps,
  merchantId: string,
  actor: Actor,
  kind: "capture" | "adjustment",
  input: CaptureInput,
  keyed?: KeyedEffect<ModificationReceipt>,
): Promise<ModificationReceipt> {
  const payment = await refundablePayment(deps, merchantId, input.payfacReference);
  const amount = checkRefundAmount(wireAmount("amount", input.amount, { negative: false }), input.currency, payment);
  const merchantReference = input.reference == null ? null : checkMerchantReference("reference", input.reference);
  if (!payment.capture?.manual) {
    throw new AppError("StateConflict", `Payment ${payment.payfacReference} is not a manual-capture authorisation.`);
  }
  const now = deps.now();
  const capture = await reserveCapture(
    deps.db,
    payment,
    { payfacReference: newUpperAlnum(16), kind, amount, merchantReference },
    (balance) => (kind === "capture" ? checkCapture(balance, amount, now) : checkAdjust(balance, now)),
    // The request is recorded with its reservation; its outcome is the capture's state on the payment.
    async (trx, reserved) => {
      await recordAudit(trx, {
        merchantId,
        actor,
        action: kind === "capture" ? "payment.capture" : "payment.adjust",
        object: { type: "payment", id: payment.payfacReference },
        details: { [kind]: reserved.payfacReference, amount: reserved.amount, currency: reserved.currency },
      });
      await keyed?.answered(trx, receipt(reserved));
    },
  );
  return receipt(await askProcessorToCapture(deps, payment, capture));
}
