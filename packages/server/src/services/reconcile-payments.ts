// Payments whose outcome Paylink never learnt: the processor's reply was lost or late, or the
// process died between the charge and writing its result. Paylink's rule for them is simple and
// safe for the shopper: such an attempt never becomes a sale. It is reversed at the processor
// (by our checkoutReference, so a charge nobody recorded is voided) and only once the processor
// confirms, the submission is abandoned and its sale slot released. Until then the slot stays
// held, so the cap can never be exceeded by a charge that later turns out to have gone through.
// Approvals voided for want of a sale are cancelled here too, until the processor confirms.
import pTimeout from "p-timeout";
import { abandonSubmission, findStalePendingSubmissions } from "../db/reservations-repository.ts";
import { findPendingCancels, markCancelConfirmed } from "../db/submissions-repository.ts";
import { errorName } from "../payments/error-name.ts";
import type { CheckoutServiceDeps } from "./deps.ts";

const REVERSE_TIMEOUT_MS = 10_000;

export type ReconcileDeps = Pick<CheckoutServiceDeps, "db" | "processor" | "tokenProcessor" | "log">;

/**
 * Asks the processor to reverse one attempt; true once it confirmed. Never throws: a failure is
 * logged (with the references an operator needs) and tried again by the next sweep. An attempt
 * that charged a saved card (`paidWithToken`) is undone as a token charge.
 */
export async function reverseUnknownAttempt(
  deps: ReconcileDeps,
  checkoutReference: string,
  paidWithToken?: string | null,
): Promise<boolean> {
  try {
    const { processor, tokenProcessor } = deps;
    if (paidWithToken && !tokenProcessor) throw new Error("no processor of saved-card charges to reverse this attempt with");
    const reversal =
      paidWithToken && tokenProcessor ? tokenProcessor.reverseCharge(checkoutReference) : processor.reverseAttempt(checkoutReference);
    await pTimeout(reversal, { milliseconds: REVERSE_TIMEOUT_MS });
    return true;
  } catch (error) {
    deps.log.error(
      { checkoutReference, error: errorName(error) },
      "could not reverse a payment attempt with an unknown outcome; the sale slot stays held and the next sweep tries again",
    );
    return false;
  }
}

/** Cancels an approval that became no sale; true once the processor confirmed (the owed cancel is cleared). */
export async function cancelVoidedApproval(deps: ReconcileDeps, checkoutReference: string, payfacReference: string): Promise<boolean> {
  try {
    await pTimeout(deps.processor.cancel(payfacReference), { milliseconds: REVERSE_TIMEOUT_MS });
    await markCancelConfirmed(deps.db, checkoutReference);
    return true;
  } catch (error) {
    deps.log.error(
      { checkoutReference, payfacReference, error: errorName(error) },
      "could not cancel an approval the link had no slot for; the reconciler tries again",
    );
    return false;
  }
}

/**
 * Reverses and abandons submissions pending for longer than the reservation time-out (one link's,
 * on the payment path; or any link's, with the owed cancels too, on the periodic sweep). Returns
 * how many slots were released.
 */
export async function reconcileStalePayments(deps: ReconcileDeps, linkReference?: string): Promise<number> {
  const stale = await findStalePendingSubmissions(deps.db, linkReference);
  let released = 0;
  for (const { checkoutReference, paidWithToken } of stale) {
    if (!(await reverseUnknownAttempt(deps, checkoutReference, paidWithToken))) continue;
    if (await abandonSubmission(deps.db, checkoutReference)) {
      released += 1;
      deps.log.warn({ checkoutReference }, "payment attempt with an unknown outcome reversed at the processor and abandoned");
    }
  }
  if (linkReference === undefined) {
    for (const owed of await findPendingCancels(deps.db)) await cancelVoidedApproval(deps, owed.checkoutReference, owed.payfacReference);
  }
  return released;
}
