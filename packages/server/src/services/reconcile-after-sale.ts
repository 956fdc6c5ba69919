// The after-sale reconciler, run by every instance on the payment sweep: refunds whose processor
// answer never arrived are asked again (idempotently, by the refund's own reference) until the
// processor gives a final answer; saved-card charges whose answer was lost are reversed; captures
// and adjustments without an answer are asked again like refunds.
import { claimDueCaptures } from "../db/captures-repository.ts";
import { findPayment } from "../db/payments-repository.ts";
import { claimDueRefunds } from "../db/refunds-repository.ts";
import { findStaleTokenPayments } from "../db/token-payments-repository.ts";
import type { AfterSaleServiceDeps } from "./deps.ts";
import { reverseUnknownCharge } from "./reverse-unknown-charge.ts";
import { askProcessorToCapture } from "./settle-capture.ts";
import { askProcessorToModify } from "./settle-modification.ts";

export interface AfterSaleSweep {
  /** Refunds that got their final answer in this sweep. */
  refundsSettled: number;
  /** Charges reversed and recorded as failed in this sweep. */
  chargesReversed: number;
  /** Captures and adjustments that got their final answer in this sweep. */
  capturesSettled: number;
}

export async function reconcileAfterSale(deps: AfterSaleServiceDeps): Promise<AfterSaleSweep> {
  let refundsSettled = 0;
  for (const refund of await claimDueRefunds(deps.db)) {
    const payment = await findPayment(deps.db, refund.merchantId, refund.originalPayfacReference);
    if (!payment) continue;
    const settled = await askProcessorToModify(deps, payment, refund);
    if (settled.state !== "pending") refundsSettled += 1;
  }
  let chargesReversed = 0;
  for (const checkoutReference of await findStaleTokenPayments(deps.db)) {
    if (await reverseUnknownCharge(deps, checkoutReference)) chargesReversed += 1;
  }
  let capturesSettled = 0;
  for (const capture of await claimDueCaptures(deps.db)) {
    const payment = await findPayment(deps.db, capture.merchantId, capture.originalPayfacReference);
    if (!payment) continue;
    const settled = await askProcessorToCapture(deps, payment, capture);
    if (settled.state === "approved" || settled.state === "declined") capturesSettled += 1;
  }
  return { refundsSettled, chargesReversed, capturesSettled };
}
